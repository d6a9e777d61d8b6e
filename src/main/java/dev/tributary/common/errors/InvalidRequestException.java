package dev.tributary.common.errors;

/** Kafka's INVALID_REQUEST: the request is malformed or its values are out of range. */
public class InvalidRequestException extends ApiException {
  public InvalidRequestException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.INVALID_REQUEST;
  }
}
