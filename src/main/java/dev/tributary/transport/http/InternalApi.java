package dev.tributary.transport.http;

/**
 * The broker-to-controller HTTP API, shared by client ({@link HttpControllerChannel}) and server (the web layer's
 * internal controller endpoints). Every call carries the cluster's shared secret; a call without it is refused
 * with 401 before anything runs.
 */
public final class InternalApi {
  public static final String SECRET_HEADER = "X-Tributary-Cluster-Secret";
  public static final String PREFIX = "/internal/v1/controller";
  public static final String REGISTER = PREFIX + "/register";
  public static final String HEARTBEAT = PREFIX + "/heartbeat";
  public static final String TOPICS = PREFIX + "/topics";

  /** Error codes the client turns back into specific exceptions (the rest pass through as they are). */
  public static final int NOT_CONTROLLER = 42102;
  public static final int STALE_BROKER_EPOCH = 40902;
  public static final int BROKER_NOT_REGISTERED = 40903;
  /** The public TOPIC_ALREADY_EXISTS code, mapped back so that a forwarded create fails as a local one does. */
  public static final int TOPIC_EXISTS = 40901;

  private InternalApi() {}

  public static String topic(String encodedName) {
    return TOPICS + "/" + encodedName;
  }
}
