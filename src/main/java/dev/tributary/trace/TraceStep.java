package dev.tributary.trace;

/**
 * One step in the life of a traced record, as its leader saw it.
 *
 * @param kind what happened
 * @param brokerId the broker it happened on: the leader, or the follower that fetched the record
 * @param logEndOffset that broker's log end offset (LEO) as the leader knew it then; -1 if unknown
 * @param highWatermark the leader's high watermark (HW) then; -1 where the step says nothing of it
 * @param atMs milliseconds (one decimal) from the trace request's arrival at the leader, on the
 *     leader's monotonic clock; null if the step did not happen within the trace's wait (the text
 *     says why), never a guessed time
 * @param text the step in words, for the page and the command line
 */
public record TraceStep(
    Kind kind, int brokerId, long logEndOffset, long highWatermark, Double atMs, String text) {

  /** The steps of a record's life, in the order they happen when acks=all. */
  public enum Kind {
    /** The leader appended the record: it has an offset; only the leader has it. */
    APPENDED,
    /** The leader learned that a follower has the record (that follower's next fetch). */
    REPLICATED,
    /** The HW passed the record: every ISR member has it; consumers may read it. */
    COMMITTED,
    /** The producer's answer (acks=0: none; the producer counted it sent). */
    ACKNOWLEDGED;

    /** The API's spelling: {@code appended}, {@code replicated}, ... */
    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public boolean happened() {
    return atMs != null;
  }
}
