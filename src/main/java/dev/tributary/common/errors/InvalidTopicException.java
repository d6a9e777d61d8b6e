package dev.tributary.common.errors;

/** Kafka's INVALID_TOPIC_EXCEPTION: the name breaks Kafka's topic-name rules. */
public class InvalidTopicException extends ApiException {
  public InvalidTopicException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.INVALID_TOPIC_EXCEPTION;
  }
}
