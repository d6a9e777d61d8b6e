package dev.tributary.consumer;

import dev.tributary.common.errors.ApiException;

/** The principal already has as many consumer instances on this broker as it may. */
public final class TooManyConsumerInstancesException extends ApiException {
  public TooManyConsumerInstancesException(String message) {
    super(message);
  }
}
