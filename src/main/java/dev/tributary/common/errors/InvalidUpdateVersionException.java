package dev.tributary.common.errors;

/**
 * Kafka's INVALID_UPDATE_VERSION: an ISR change was proposed against a partition epoch that is no
 * longer current.
 */
public class InvalidUpdateVersionException extends ApiException {
  public InvalidUpdateVersionException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.INVALID_UPDATE_VERSION;
  }
}
