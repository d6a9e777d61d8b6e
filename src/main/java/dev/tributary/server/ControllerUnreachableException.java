package dev.tributary.server;

/**
 * No answer from the controller: connection refused, timed out, or the broker at that address is
 * gone.
 */
public class ControllerUnreachableException extends RuntimeException {
  public ControllerUnreachableException(String message, Throwable cause) {
    super(message, cause);
  }
}
