package dev.tributary.consumer;

import dev.tributary.common.errors.ApiException;

/** No such consumer instance (it was deleted, timed out, or lives on another broker). */
public final class ConsumerInstanceNotFoundException extends ApiException {
  public ConsumerInstanceNotFoundException(String message) {
    super(message);
  }
}
