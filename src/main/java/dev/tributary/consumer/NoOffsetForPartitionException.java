package dev.tributary.consumer;

import dev.tributary.common.errors.ApiException;

/**
 * A partition has no committed offset and auto.offset.reset is none (Kafka's
 * NoOffsetForPartitionException).
 */
public final class NoOffsetForPartitionException extends ApiException {
  public NoOffsetForPartitionException(String message) {
    super(message);
  }
}
