package dev.tributary.common.errors;

/** Kafka's TOPIC_ALREADY_EXISTS. */
public class TopicExistsException extends ApiException {
  public TopicExistsException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.TOPIC_ALREADY_EXISTS;
  }
}
