package dev.tributary.common.errors;

/**
 * Kafka's BROKER_ID_NOT_REGISTERED: a heartbeat from a broker id the metadata has no registration
 * for.
 */
public class BrokerNotRegisteredException extends ApiException {
  public BrokerNotRegisteredException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.BROKER_ID_NOT_REGISTERED;
  }
}
