package dev.tributary.log.record;

import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;

/**
 * Bytes that are not a valid v2 record batch: bad magic, length, CRC or record framing (Kafka's
 * CORRUPT_MESSAGE).
 */
public class CorruptRecordException extends ApiException {
  public CorruptRecordException(String message) {
    super(message);
  }

  public CorruptRecordException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public Errors error() {
    return Errors.CORRUPT_MESSAGE;
  }
}
