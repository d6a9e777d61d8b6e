package dev.tributary.common.errors;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Kafka's error codes, by Kafka's names and numbers (the protocol's {@code error_code}). Every
 * protocol-neutral service answers per partition (or per resource) with one of these and a message;
 * the REST adapter turns them into an HTTP status and REST Proxy's error code, the Kafka adapter
 * sends the number as it is. The core's exceptions each name theirs ({@link ApiException#error()});
 * {@link #forException} is the one place a failure becomes a code.
 *
 * <p>Only the codes Tributary can answer with, or may receive from a peer, are listed; a code read
 * off the wire that is not here decodes as {@link #UNKNOWN_SERVER_ERROR}.
 */
public enum Errors {
  UNKNOWN_SERVER_ERROR(-1, false),
  NONE(0, false),
  OFFSET_OUT_OF_RANGE(1, false),
  CORRUPT_MESSAGE(2, true),
  UNKNOWN_TOPIC_OR_PARTITION(3, true),
  INVALID_FETCH_SIZE(4, false),
  LEADER_NOT_AVAILABLE(5, true),
  NOT_LEADER_OR_FOLLOWER(6, true),
  REQUEST_TIMED_OUT(7, true),
  BROKER_NOT_AVAILABLE(8, false),
  REPLICA_NOT_AVAILABLE(9, true),
  MESSAGE_TOO_LARGE(10, false),
  OFFSET_METADATA_TOO_LARGE(12, false),
  NETWORK_EXCEPTION(13, true),
  COORDINATOR_LOAD_IN_PROGRESS(14, true),
  COORDINATOR_NOT_AVAILABLE(15, true),
  NOT_COORDINATOR(16, true),
  INVALID_TOPIC_EXCEPTION(17, false),
  RECORD_LIST_TOO_LARGE(18, false),
  NOT_ENOUGH_REPLICAS(19, true),
  NOT_ENOUGH_REPLICAS_AFTER_APPEND(20, true),
  INVALID_REQUIRED_ACKS(21, false),
  ILLEGAL_GENERATION(22, false),
  INCONSISTENT_GROUP_PROTOCOL(23, false),
  INVALID_GROUP_ID(24, false),
  UNKNOWN_MEMBER_ID(25, false),
  INVALID_SESSION_TIMEOUT(26, false),
  REBALANCE_IN_PROGRESS(27, false),
  INVALID_COMMIT_OFFSET_SIZE(28, false),
  TOPIC_AUTHORIZATION_FAILED(29, false),
  GROUP_AUTHORIZATION_FAILED(30, false),
  CLUSTER_AUTHORIZATION_FAILED(31, false),
  INVALID_TIMESTAMP(32, false),
  UNSUPPORTED_SASL_MECHANISM(33, false),
  ILLEGAL_SASL_STATE(34, false),
  UNSUPPORTED_VERSION(35, false),
  TOPIC_ALREADY_EXISTS(36, false),
  INVALID_PARTITIONS(37, false),
  INVALID_REPLICATION_FACTOR(38, false),
  INVALID_REPLICA_ASSIGNMENT(39, false),
  INVALID_CONFIG(40, false),
  NOT_CONTROLLER(41, true),
  INVALID_REQUEST(42, false),
  UNSUPPORTED_FOR_MESSAGE_FORMAT(43, false),
  POLICY_VIOLATION(44, false),
  OUT_OF_ORDER_SEQUENCE_NUMBER(45, false),
  DUPLICATE_SEQUENCE_NUMBER(46, false),
  INVALID_PRODUCER_EPOCH(47, false),
  INVALID_TXN_STATE(48, false),
  INVALID_PRODUCER_ID_MAPPING(49, false),
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED(53, false),
  SECURITY_DISABLED(54, false),
  OPERATION_NOT_ATTEMPTED(55, false),
  KAFKA_STORAGE_ERROR(56, true),
  LOG_DIR_NOT_FOUND(57, false),
  SASL_AUTHENTICATION_FAILED(58, false),
  UNKNOWN_PRODUCER_ID(59, false),
  REASSIGNMENT_IN_PROGRESS(60, false),
  NON_EMPTY_GROUP(68, false),
  GROUP_ID_NOT_FOUND(69, false),
  FETCH_SESSION_ID_NOT_FOUND(70, true),
  INVALID_FETCH_SESSION_EPOCH(71, true),
  LISTENER_NOT_FOUND(72, true),
  TOPIC_DELETION_DISABLED(73, false),
  FENCED_LEADER_EPOCH(74, true),
  UNKNOWN_LEADER_EPOCH(75, true),
  UNSUPPORTED_COMPRESSION_TYPE(76, false),
  STALE_BROKER_EPOCH(77, false),
  OFFSET_NOT_AVAILABLE(78, true),
  MEMBER_ID_REQUIRED(79, false),
  PREFERRED_LEADER_NOT_AVAILABLE(80, true),
  GROUP_MAX_SIZE_REACHED(81, false),
  FENCED_INSTANCE_ID(82, false),
  ELIGIBLE_LEADERS_NOT_AVAILABLE(83, true),
  ELECTION_NOT_NEEDED(84, true),
  NO_REASSIGNMENT_IN_PROGRESS(85, false),
  GROUP_SUBSCRIBED_TO_TOPIC(86, false),
  INVALID_RECORD(87, false),
  UNSTABLE_OFFSET_COMMIT(88, true),
  THROTTLING_QUOTA_EXCEEDED(89, true),
  RESOURCE_NOT_FOUND(91, false),
  DUPLICATE_RESOURCE(92, false),
  INVALID_UPDATE_VERSION(95, false),
  UNKNOWN_TOPIC_ID(100, true),
  DUPLICATE_BROKER_REGISTRATION(101, false),
  BROKER_ID_NOT_REGISTERED(102, false),
  INCONSISTENT_TOPIC_ID(103, true),
  INCONSISTENT_CLUSTER_ID(104, false),
  INELIGIBLE_REPLICA(107, false),
  NEW_LEADER_ELECTED(108, false),
  INVALID_REGISTRATION(119, false);

  private static final Map<Short, Errors> BY_CODE = new HashMap<>();

  static {
    for (Errors error : values()) {
      BY_CODE.put(error.code, error);
    }
  }

  private final short code;
  private final boolean retriable;

  Errors(int code, boolean retriable) {
    this.code = (short) code;
    this.retriable = retriable;
  }

  /** The number on the wire. */
  public short code() {
    return code;
  }

  /**
   * Whether Kafka's clients retry on it (its exception is a {@code RetriableException}): the same
   * request may succeed later, for example once leadership has moved.
   */
  public boolean retriable() {
    return retriable;
  }

  /**
   * The error with wire number {@code code}; {@link #UNKNOWN_SERVER_ERROR} for a number not known
   * here.
   */
  public static Errors forCode(short code) {
    Errors error = BY_CODE.get(code);
    return error == null ? UNKNOWN_SERVER_ERROR : error;
  }

  /**
   * The code a failure stands for: an {@link ApiException}'s own, {@link #REQUEST_TIMED_OUT} for a
   * timeout, {@link #UNKNOWN_SERVER_ERROR} for anything else (a bug, which the caller logs).
   * Completion and execution wrappers are looked through.
   */
  public static Errors forException(Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause instanceof ApiException api) {
      return api.error();
    }
    if (cause instanceof TimeoutException) {
      return REQUEST_TIMED_OUT;
    }
    return UNKNOWN_SERVER_ERROR;
  }

  /**
   * What to tell a client about {@code failure}: the core's own message for its refusals; for
   * anything else (a bug, a library's exception) only its kind, never its internals.
   */
  public static String messageOf(Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause instanceof ApiException || cause instanceof TimeoutException) {
      return cause.getMessage();
    }
    return "Internal error: " + cause.getClass().getSimpleName();
  }

  /** The failure inside {@link CompletionException} and {@link ExecutionException} wrappers. */
  public static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  /**
   * The core exception for this code with {@code message}, for an error that came back from another
   * broker: the same class a local failure would have thrown where one exists in {@code
   * common.errors}, else an {@link ErrorCodeException} that carries the code. {@link #NONE} has
   * none.
   */
  public ApiException exception(String message) {
    return switch (this) {
      case NONE -> throw new IllegalArgumentException("NONE is not an error");
      case NOT_LEADER_OR_FOLLOWER -> new NotLeaderOrFollowerException(message);
      case LEADER_NOT_AVAILABLE -> new LeaderNotAvailableException(message);
      case UNKNOWN_TOPIC_OR_PARTITION -> UnknownTopicOrPartitionException.withMessage(message);
      case NOT_ENOUGH_REPLICAS -> new NotEnoughReplicasException(message);
      case NOT_ENOUGH_REPLICAS_AFTER_APPEND -> new NotEnoughReplicasAfterAppendException(message);
      case FENCED_LEADER_EPOCH -> new FencedLeaderEpochException(message);
      case UNKNOWN_LEADER_EPOCH -> new UnknownLeaderEpochException(message);
      case NOT_CONTROLLER -> new NotControllerException(message);
      case TOPIC_ALREADY_EXISTS -> new TopicExistsException(message);
      case INVALID_TOPIC_EXCEPTION -> new InvalidTopicException(message);
      case INVALID_PARTITIONS -> new InvalidPartitionsException(message);
      case INVALID_REPLICATION_FACTOR -> new InvalidReplicationFactorException(message);
      case INVALID_REQUEST -> new InvalidRequestException(message);
      case STALE_BROKER_EPOCH -> new StaleBrokerEpochException(message);
      case BROKER_ID_NOT_REGISTERED -> new BrokerNotRegisteredException(message);
      case INVALID_UPDATE_VERSION -> new InvalidUpdateVersionException(message);
      case INELIGIBLE_REPLICA -> new IneligibleReplicaException(message);
      case INVALID_REGISTRATION -> new InvalidRegistrationException(message);
      case BROKER_NOT_AVAILABLE -> new BrokerNotAvailableException(message);
      case TOPIC_AUTHORIZATION_FAILED, GROUP_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_FAILED ->
          new AuthorizationException(this, message);
      default -> new ErrorCodeException(this, message);
    };
  }
}
