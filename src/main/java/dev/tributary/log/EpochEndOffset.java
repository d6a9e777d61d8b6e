package dev.tributary.log;

/**
 * The answer to "where does leader epoch N end in your log?" (Kafka's OffsetsForLeaderEpoch,
 * KIP-101/KIP-279): {@code leaderEpoch} is the largest epoch this log knows that is at most the one
 * asked for, and {@code endOffset} the offset the next epoch starts at (the log end offset for the
 * latest epoch). {@link #UNDEFINED} when the log knows no such epoch.
 */
public record EpochEndOffset(int leaderEpoch, long endOffset) {
  public static final EpochEndOffset UNDEFINED = new EpochEndOffset(-1, -1);

  public boolean isUndefined() {
    return leaderEpoch < 0 || endOffset < 0;
  }
}
