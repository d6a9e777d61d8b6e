package dev.tributary.log;

import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;

/**
 * An idempotent producer's batch whose sequence number does not follow the last one this partition
 * has from it (Kafka's OutOfOrderSequenceException, error OUT_OF_ORDER_SEQUENCE_NUMBER): a batch
 * was lost in between, or a new epoch did not start at 0. Nothing of the request's batches for the
 * partition was appended. Not retriable: the producer must reset its sequence (KIP-360).
 */
public class OutOfOrderSequenceException extends ApiException {
  public OutOfOrderSequenceException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.OUT_OF_ORDER_SEQUENCE_NUMBER;
  }
}
