package dev.tributary.group.assignor;

import dev.tributary.common.TopicPartition;
import java.util.List;
import java.util.Map;

/**
 * A client-side partition assignor of Kafka's classic consumer-group protocol (KIP-54): the group
 * leader runs it over every member's {@link Subscription} and sends each member its share.
 *
 * <p>Contract, for every implementation:
 *
 * <ul>
 *   <li>every member of {@code subscriptions} gets an entry, possibly an empty list;
 *   <li>every partition of every subscribed topic that exists in {@code partitionsPerTopic} goes to
 *       exactly one member subscribed to its topic, and nothing else is assigned; subscribed topics
 *       missing from {@code partitionsPerTopic} are ignored;
 *   <li>the result depends only on the input's contents, never on map iteration order; each list is
 *       sorted by (topic, partition) and the result is unmodifiable.
 * </ul>
 *
 * Implementations are stateless and thread-safe.
 */
public interface PartitionAssignor {
  /** Kafka's protocol name: "range", "roundrobin", "sticky". */
  String name();

  /**
   * memberId -> partitions it gets; every member of subscriptions gets an entry (maybe empty);
   * every partition of every subscribed topic that exists in partitionsPerTopic is assigned to
   * exactly one member subscribed to its topic. Deterministic for equal input.
   *
   * @throws IllegalArgumentException if a partition count is negative
   */
  Map<String, List<TopicPartition>> assign(
      Map<String, Integer> partitionsPerTopic, Map<String, Subscription> subscriptions);
}
