package dev.tributary.log;

import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;

/**
 * A well-formed batch holding a record the log must refuse (Kafka's InvalidRecordException, error
 * INVALID_RECORD): today, a record without a key appended to a compacted topic, which the cleaner
 * could never deduplicate. Not retriable: the same request fails again.
 */
public class InvalidRecordException extends ApiException {
  public InvalidRecordException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.INVALID_RECORD;
  }
}
