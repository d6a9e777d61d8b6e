package dev.tributary.log;

import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;

/**
 * A log config override with an unknown name or an invalid value; the message names the config and
 * the problem.
 */
public class InvalidConfigException extends ApiException {
  public InvalidConfigException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.INVALID_CONFIG;
  }
}
