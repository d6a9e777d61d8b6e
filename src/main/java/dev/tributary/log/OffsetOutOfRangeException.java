package dev.tributary.log;

/**
 * A read or offset change outside the log's valid range [logStartOffset, logEndOffset] (Kafka's
 * OFFSET_OUT_OF_RANGE). The message states the valid range so a consumer can reset.
 */
public class OffsetOutOfRangeException extends RuntimeException {
  public OffsetOutOfRangeException(String message) {
    super(message);
  }
}
