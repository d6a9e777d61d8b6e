package dev.tributary.scenario;

/** A scenario file that cannot be read, or a directive its handler cannot carry out. */
public final class ScenarioException extends RuntimeException {
  public ScenarioException(String message) {
    super(message);
  }

  public ScenarioException(String message, Throwable cause) {
    super(message, cause);
  }
}
