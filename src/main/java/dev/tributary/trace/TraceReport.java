package dev.tributary.trace;

import dev.tributary.common.TopicPartition;
import dev.tributary.replication.Acks;
import java.util.List;

/**
 * What a record trace found: where the record went and each step of its life with its time.
 *
 * @param offset the record's offset N
 * @param leaderId the broker that led the partition and measured the steps
 * @param leaderEpoch the leader epoch the record was appended in
 * @param replicas the partition's replicas, and {@code isr} its in-sync replicas, when the record
 *     was appended
 * @param waitedFor the step the producer's answer waited for, with these acks: {@code nothing}
 *     (acks=0: no answer at all), {@code appended} (acks=1) or {@code committed} (acks=all)
 * @param waitMs how long the trace waited for the steps after the append
 * @param complete whether every step it waited for happened (the append, each ISR follower's fetch,
 *     the HW and the answer) before {@code waitMs} ran out
 * @param steps in the order they happened; the steps that did not happen last
 */
public record TraceReport(
    TopicPartition topicPartition,
    long offset,
    int leaderId,
    int leaderEpoch,
    List<Integer> replicas,
    List<Integer> isr,
    Acks acks,
    String waitedFor,
    long waitMs,
    boolean complete,
    List<TraceStep> steps) {

  /** The acks setting as Kafka spells it: {@code 0}, {@code 1} or {@code all}. */
  public static String acksName(Acks acks) {
    return switch (acks) {
      case NONE -> "0";
      case LEADER -> "1";
      case ALL -> "all";
    };
  }

  /** The step the producer's answer waits for with {@code acks}; see {@link #waitedFor}. */
  public static String waitedFor(Acks acks) {
    return switch (acks) {
      case NONE -> "nothing";
      case LEADER -> TraceStep.Kind.APPENDED.wireName();
      case ALL -> TraceStep.Kind.COMMITTED.wireName();
    };
  }
}
