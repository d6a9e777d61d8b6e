package dev.tributary.log;

/** A batch larger than the topic's {@code max.message.bytes} (Kafka's MESSAGE_TOO_LARGE). */
public class RecordTooLargeException extends RuntimeException {
  public RecordTooLargeException(String message) {
    super(message);
  }
}
