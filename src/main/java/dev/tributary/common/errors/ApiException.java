package dev.tributary.common.errors;

/**
 * A request the core refuses, named after the Kafka error it stands for
 * (UNKNOWN_TOPIC_OR_PARTITION, TOPIC_ALREADY_EXISTS, ...): {@link #error()} is that code. Each
 * protocol adapter maps it (the REST one to an HTTP status and code, the Kafka one to the code as
 * it is); the core never knows about either.
 */
public abstract class ApiException extends RuntimeException {
  protected ApiException(String message) {
    super(message);
  }

  protected ApiException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * The Kafka error this failure stands for. {@link Errors#UNKNOWN_SERVER_ERROR} for refusals that
   * only the REST API knows (a REST consumer instance's own states), which no Kafka client sees.
   */
  public Errors error() {
    return Errors.UNKNOWN_SERVER_ERROR;
  }
}
