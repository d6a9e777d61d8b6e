package dev.tributary.consumer;

import dev.tributary.common.errors.ApiException;

/** A consumer instance with this name already exists in the group. */
public final class ConsumerAlreadyExistsException extends ApiException {
  public ConsumerAlreadyExistsException(String message) {
    super(message);
  }
}
