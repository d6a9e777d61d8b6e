package dev.tributary.log;

/**
 * A well-formed batch holding a record the log must refuse (Kafka's InvalidRecordException, error
 * INVALID_RECORD): today, a record without a key appended to a compacted topic, which the cleaner
 * could never deduplicate. Not retriable: the same request fails again.
 */
public class InvalidRecordException extends RuntimeException {
  public InvalidRecordException(String message) {
    super(message);
  }
}
