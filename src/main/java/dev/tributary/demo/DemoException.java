package dev.tributary.demo;

/** The demo cannot go on: the cluster answered something unexpected, or a wait ran out. */
public final class DemoException extends RuntimeException {
  public DemoException(String message) {
    super(message);
  }

  public DemoException(String message, Throwable cause) {
    super(message, cause);
  }
}
