package dev.tributary.consumer;

import dev.tributary.common.errors.ApiException;

/**
 * The call does not fit the instance's state: subscription and manual assignment together, a seek
 * on a partition it does not hold, records before subscribing (Kafka's IllegalStateException).
 */
public final class IllegalConsumerStateException extends ApiException {
  public IllegalConsumerStateException(String message) {
    super(message);
  }
}
