package dev.tributary.log;

import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;

/**
 * A batch from an older epoch of a producer than this partition has already seen (Kafka's
 * InvalidProducerEpochException, error INVALID_PRODUCER_EPOCH): a zombie instance of a producer
 * whose id has moved on to a newer epoch. Nothing was appended. Kafka answers a produce with this
 * code rather than PRODUCER_FENCED since 2.7 (KIP-588), so a client can tell it from a fatal fence.
 */
public class InvalidProducerEpochException extends ApiException {
  public InvalidProducerEpochException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.INVALID_PRODUCER_EPOCH;
  }
}
