package dev.tributary.consumer;

import java.util.Map;

/** The topics a consumer can see and their partition counts, from the broker's metadata image. */
public interface ClusterTopics {
  /**
   * Every topic's partition count; internal topics ({@code __consumer_offsets}) are included only
   * if {@code includeInternal} (pattern subscriptions exclude them, as Kafka's
   * exclude.internal.topics does).
   */
  Map<String, Integer> partitionCounts(boolean includeInternal);
}
