package dev.tributary.log;

import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;

/**
 * A read or offset change outside the log's valid range [logStartOffset, logEndOffset] (Kafka's
 * OFFSET_OUT_OF_RANGE). The message states the valid range so a consumer can reset.
 */
public class OffsetOutOfRangeException extends ApiException {
  public OffsetOutOfRangeException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.OFFSET_OUT_OF_RANGE;
  }
}
