package dev.tributary.log;

/**
 * The log directory is offline (Kafka's KafkaStorageException, error KAFKA_STORAGE_ERROR, code 56,
 * retriable): an I/O failure took it offline, or happened just now and did. Nothing the failed
 * operation wrote became visible. The client should retry on the partition's new leader, which the
 * controller elects once this broker reports the directory offline (docs/adr/0015).
 */
public final class KafkaStorageException extends LogStorageException {
  public KafkaStorageException(String message, Throwable cause) {
    super(message, cause);
  }
}
