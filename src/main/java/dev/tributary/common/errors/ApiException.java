package dev.tributary.common.errors;

/**
 * A request the core refuses, named after the Kafka error it stands for
 * (UNKNOWN_TOPIC_OR_PARTITION, TOPIC_ALREADY_EXISTS, ...). The web layer maps each subclass to an
 * HTTP status and error code; the core never knows about HTTP.
 */
public abstract class ApiException extends RuntimeException {
  protected ApiException(String message) {
    super(message);
  }
}
