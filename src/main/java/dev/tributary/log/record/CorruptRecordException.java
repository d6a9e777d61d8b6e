package dev.tributary.log.record;

/**
 * Bytes that are not a valid v2 record batch: bad magic, length, CRC or record framing (Kafka's
 * CORRUPT_MESSAGE).
 */
public class CorruptRecordException extends RuntimeException {
  public CorruptRecordException(String message) {
    super(message);
  }

  public CorruptRecordException(String message, Throwable cause) {
    super(message, cause);
  }
}
