package dev.tributary.metadata;

import dev.tributary.common.errors.Errors;

/**
 * What a request for many partitions did to one of them, with Kafka's error code: {@link
 * Errors#NONE}, or the refusal and why (a reassignment of one partition can be refused while the
 * others go ahead, as in Kafka's AlterPartitionReassignments).
 *
 * @param message why, or null when done
 */
public record PartitionOutcome(Errors error, String message) {
  public static final PartitionOutcome DONE = new PartitionOutcome(Errors.NONE, null);
}
