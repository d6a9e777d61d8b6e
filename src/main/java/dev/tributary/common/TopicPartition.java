package dev.tributary.common;

import java.util.Objects;

/**
 * A topic name and partition number; also names the partition's log directory ({@code
 * <topic>-<partition>}), exactly as Kafka does.
 */
public record TopicPartition(String topic, int partition) {
  public TopicPartition {
    Objects.requireNonNull(topic, "topic");
    if (partition < 0) {
      throw new IllegalArgumentException("partition must be >= 0: " + partition);
    }
  }

  /** The log directory name, {@code orders-3}. */
  public String dirName() {
    return topic + "-" + partition;
  }

  /**
   * Parses a directory name; the partition is after the last dash because topic names may contain
   * dashes.
   */
  public static TopicPartition fromDirName(String dirName) {
    int dash = dirName.lastIndexOf('-');
    if (dash <= 0 || dash == dirName.length() - 1) {
      throw new IllegalArgumentException("not a partition directory: " + dirName);
    }
    return new TopicPartition(
        dirName.substring(0, dash), Integer.parseInt(dirName.substring(dash + 1)));
  }

  @Override
  public String toString() {
    return dirName();
  }
}
