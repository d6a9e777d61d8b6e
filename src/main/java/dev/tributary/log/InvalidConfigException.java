package dev.tributary.log;

/**
 * A log config override with an unknown name or an invalid value; the message names the config and
 * the problem.
 */
public class InvalidConfigException extends RuntimeException {
  public InvalidConfigException(String message) {
    super(message);
  }
}
