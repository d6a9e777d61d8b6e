package dev.tributary.common.errors;

/** Kafka's NOT_CONTROLLER: this broker is not the active controller (or none is elected yet). */
public class NotControllerException extends ApiException {
  public NotControllerException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.NOT_CONTROLLER;
  }
}
