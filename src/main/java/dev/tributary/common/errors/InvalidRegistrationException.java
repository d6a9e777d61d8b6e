package dev.tributary.common.errors;

/**
 * Kafka's INVALID_REGISTRATION (119): the controller refused a broker registration as invalid.
 * Here: its listeners have no {@code HTTP} one, repeat a name, or have a name other than upper case
 * letters, digits and {@code _}, an empty host, a name or host over 255 characters, a port outside
 * 1–65535 or an unknown security protocol. Not retriable: the broker's configuration must change.
 */
public class InvalidRegistrationException extends ApiException {
  public InvalidRegistrationException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.INVALID_REGISTRATION;
  }
}
