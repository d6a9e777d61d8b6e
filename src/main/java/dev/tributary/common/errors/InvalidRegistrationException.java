package dev.tributary.common.errors;

/**
 * Kafka's INVALID_REGISTRATION (119): the controller refused a broker registration as invalid.
 * Here: its listeners have no {@code HTTP} one, repeat a name, or name a port outside 1–65535 or an
 * empty host. Not retriable: the broker's configuration must change.
 */
public class InvalidRegistrationException extends ApiException {
  public InvalidRegistrationException(String message) {
    super(message);
  }
}
