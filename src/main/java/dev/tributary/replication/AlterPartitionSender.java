package dev.tributary.replication;

import java.util.concurrent.CompletableFuture;

/**
 * Sends ISR changes to the active controller. The future completes when the controller has
 * committed the change (it takes effect here when the metadata record is replayed), or fails with
 * the controller's refusal ({@link dev.tributary.common.errors.InvalidUpdateVersionException},
 * {@link dev.tributary.common.errors.FencedLeaderEpochException}, ...) or with any other exception
 * when the outcome is unknown (the controller did not answer).
 */
public interface AlterPartitionSender {
  CompletableFuture<Void> send(AlterPartitionRequest request);
}
