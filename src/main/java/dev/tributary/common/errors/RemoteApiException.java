package dev.tributary.common.errors;

/**
 * An error another broker answered with, passed on as it came: its HTTP status, error code and
 * message. Lets a forwarded request fail exactly as it would have on the broker that handled it.
 */
public class RemoteApiException extends ApiException {
  private final int status;
  private final int errorCode;

  public RemoteApiException(int status, int errorCode, String message) {
    super(message);
    this.status = status;
    this.errorCode = errorCode;
  }

  public int status() {
    return status;
  }

  public int errorCode() {
    return errorCode;
  }
}
