package dev.tributary.common.errors;

/**
 * A failure known only by its Kafka error code and message: what another broker answered, for a
 * code that has no dedicated exception class here. It fails the caller exactly as the code says.
 */
public final class ErrorCodeException extends ApiException {
  private final Errors error;

  public ErrorCodeException(Errors error, String message) {
    super(message);
    if (error == Errors.NONE) {
      throw new IllegalArgumentException("NONE is not an error");
    }
    this.error = error;
  }

  @Override
  public Errors error() {
    return error;
  }
}
