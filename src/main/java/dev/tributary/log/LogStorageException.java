package dev.tributary.log;

import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;

/**
 * An I/O failure of the log's files (Kafka's KAFKA_STORAGE_ERROR). The log may be unusable
 * afterwards; a restart runs recovery.
 */
public class LogStorageException extends ApiException {
  public LogStorageException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public Errors error() {
    return Errors.KAFKA_STORAGE_ERROR;
  }
}
