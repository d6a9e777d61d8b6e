package dev.tributary.common.errors;

/** The broker cannot serve yet (still recovering its logs) or is shutting down. */
public class BrokerNotAvailableException extends ApiException {
  public BrokerNotAvailableException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.BROKER_NOT_AVAILABLE;
  }
}
