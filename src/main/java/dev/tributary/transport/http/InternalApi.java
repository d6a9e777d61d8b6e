package dev.tributary.transport.http;

/**
 * The broker-to-controller and broker-to-leader HTTP API, shared by client ({@link
 * HttpControllerChannel}) and server (the web layer's internal controller endpoints). Every call
 * carries the cluster's shared secret; a call without it is refused with 401 before anything runs.
 */
public final class InternalApi {
  public static final String SECRET_HEADER = "X-Tributary-Cluster-Secret";

  /**
   * True if {@code presented} (a {@link #SECRET_HEADER} value, or null) is the cluster secret
   * {@code expected}; compared in constant time. A broker without a secret matches nothing.
   */
  public static boolean secretMatches(String expected, String presented) {
    return expected != null
        && !expected.isEmpty()
        && presented != null
        && java.security.MessageDigest.isEqual(
            expected.getBytes(java.nio.charset.StandardCharsets.UTF_8),
            presented.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  public static final String PREFIX = "/internal/v1/controller";
  public static final String REGISTER = PREFIX + "/register";
  public static final String HEARTBEAT = PREFIX + "/heartbeat";
  public static final String TOPICS = PREFIX + "/topics";
  public static final String BROKERS = PREFIX + "/brokers";
  public static final String ALTER_PARTITION = PREFIX + "/alter-partition";
  public static final String FENCE_BROKER = PREFIX + "/fence-broker";
  public static final String SECURITY = PREFIX + "/security";
  public static final String BROKER_UNREACHABLE = PREFIX + "/broker-unreachable";
  public static final String REPLICA_TRUNCATED = PREFIX + "/replica-truncated";
  public static final String FAULT_INJECTED = PREFIX + "/fault-injected";
  public static final String ELECT_LEADERS = PREFIX + "/elect-leaders";
  public static final String REASSIGNMENTS = PREFIX + "/reassignments";

  /**
   * In the controller endpoints' error bodies next to {@code error_code}: the refusal's Kafka error
   * code, which the caller turns back into the same exception.
   */
  public static final String KAFKA_ERROR_CODE = "kafka_error_code";

  /**
   * AllocateProducerIds: {@code {"broker_id", "broker_epoch"}} → {@code {"producer_id_start",
   * "producer_id_len"}} (Kafka's field names).
   */
  public static final String ALLOCATE_PRODUCER_IDS = PREFIX + "/allocate-producer-ids";

  /**
   * Replica fetch and OffsetsForLeaderEpoch, broker to leader; binary bodies ({@link
   * ReplicaFetchCodec}).
   */
  public static final String REPLICA_FETCH = "/internal/v1/replica/fetch";

  public static final String REPLICA_EPOCHS = "/internal/v1/replica/epoch-end-offsets";
  public static final String REPLICA_MEDIA_TYPE = "application/x-tributary-replica";

  /**
   * A produce forwarded to the partitions' leader as batch bytes, broker to leader; binary bodies
   * ({@link ProduceCodec}).
   */
  public static final String PRODUCE = "/internal/v1/produce";

  public static final String PRODUCE_MEDIA_TYPE = "application/x-tributary-produce";

  /**
   * A broker's own load for another's balancer, broker to broker: GET answers JSON ({@link
   * BrokerLoadWire}).
   */
  public static final String BROKER_LOAD = "/internal/v1/broker/load";

  /**
   * Error codes the client turns back into specific exceptions (the rest pass through as they are).
   */
  public static final int NOT_CONTROLLER = 42102;

  public static final int STALE_BROKER_EPOCH = 40902;
  public static final int BROKER_NOT_REGISTERED = 40903;

  /** Kafka's INVALID_REGISTRATION: the controller refused a registration's listeners. */
  public static final int INVALID_REGISTRATION = 40008;

  /**
   * The public TOPIC_ALREADY_EXISTS code, mapped back so that a forwarded create fails as a local
   * one does.
   */
  public static final int TOPIC_EXISTS = 40901;

  /**
   * AlterPartition refusals, mapped back so the leader can tell a definite "no" from an unknown
   * outcome.
   */
  public static final int FENCED_LEADER_EPOCH = 40904;

  public static final int INVALID_UPDATE_VERSION = 40905;
  public static final int INELIGIBLE_REPLICA = 40906;
  public static final int NOT_LEADER_OR_FOLLOWER = 42101;
  public static final int UNKNOWN_TOPIC = 40401;

  private InternalApi() {}

  /** A registered broker, to unregister (DELETE). */
  public static String broker(int brokerId) {
    return BROKERS + "/" + brokerId;
  }

  public static String topic(String encodedName) {
    return TOPICS + "/" + encodedName;
  }
}
