package dev.tributary.consumer;

import dev.tributary.common.errors.ApiException;

/** The group's coordinator could not be reached or answered a retriable error; retry. */
public final class CoordinatorNotAvailableException extends ApiException {
  public CoordinatorNotAvailableException(String message) {
    super(message);
  }
}
