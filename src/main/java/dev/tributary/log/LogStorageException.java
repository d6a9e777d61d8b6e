package dev.tributary.log;

/**
 * An I/O failure of the log's files (Kafka's KAFKA_STORAGE_ERROR). The log may be unusable
 * afterwards; a restart runs recovery.
 */
public class LogStorageException extends RuntimeException {
  public LogStorageException(String message, Throwable cause) {
    super(message, cause);
  }
}
