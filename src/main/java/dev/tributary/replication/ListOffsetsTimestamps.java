package dev.tributary.replication;

/**
 * The special timestamps of Kafka's ListOffsets: instead of a time, a client asks for the earliest
 * offset, the latest committed one (the high watermark) or the record with the largest timestamp
 * (KIP-734).
 */
public final class ListOffsetsTimestamps {
  public static final long LATEST = -1;
  public static final long EARLIEST = -2;
  public static final long MAX_TIMESTAMP = -3;

  private ListOffsetsTimestamps() {}
}
