package dev.tributary.consumer;

import dev.tributary.common.errors.ApiException;

/**
 * The group rebalanced since these records were returned, so the commit was refused; the partitions
 * may belong to another member now (Kafka's CommitFailedException).
 */
public final class CommitFailedException extends ApiException {
  public CommitFailedException(String message) {
    super(message);
  }
}
