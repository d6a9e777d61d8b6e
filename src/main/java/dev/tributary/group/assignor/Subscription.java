package dev.tributary.group.assignor;

import dev.tributary.common.TopicPartition;
import java.util.List;

/**
 * One member's subscription as the group leader sees it: topics, the partitions it owned in its
 * last generation (for sticky), that generation (-1 if none).
 *
 * <p>The lists are copied; they may hold duplicates, which assignors treat as one.
 */
public record Subscription(
    List<String> topics, List<TopicPartition> ownedPartitions, int generationId) {

  /**
   * The generation of a member that has never been in a generation (Kafka's DEFAULT_GENERATION).
   */
  public static final int NO_GENERATION = -1;

  public Subscription {
    topics = List.copyOf(topics);
    ownedPartitions = List.copyOf(ownedPartitions);
  }

  /** A subscription that owns nothing, as a new member sends it. */
  public Subscription(List<String> topics) {
    this(topics, List.of(), NO_GENERATION);
  }
}
