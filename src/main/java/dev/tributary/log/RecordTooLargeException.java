package dev.tributary.log;

import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;

/** A batch larger than the topic's {@code max.message.bytes} (Kafka's MESSAGE_TOO_LARGE). */
public class RecordTooLargeException extends ApiException {
  public RecordTooLargeException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.MESSAGE_TOO_LARGE;
  }
}
