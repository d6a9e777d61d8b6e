package dev.tributary.replication;

/**
 * The producer's {@code acks} setting: how much replication a produce waits for before it is
 * answered.
 */
public enum Acks {
  /** Answer at once; the producer learns no offsets (Kafka reports -1). */
  NONE,
  /** Answer once the leader has appended. */
  LEADER,
  /** Answer once every in-sync replica has the records, i.e. the high watermark has passed them. */
  ALL;

  /** Parses Kafka's spelling: {@code 0}, {@code 1}, {@code all} or {@code -1}. */
  public static Acks parse(String value) {
    return switch (value) {
      case "0" -> NONE;
      case "1" -> LEADER;
      case "all", "-1" -> ALL;
      default ->
          throw new IllegalArgumentException("acks must be 0, 1, all or -1, got '" + value + "'");
    };
  }
}
