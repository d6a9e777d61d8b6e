package dev.tributary.consumer;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.ConsumerProtocol;
import dev.tributary.group.CoordinatorApi;
import dev.tributary.group.CoordinatorApi.JoinResult;
import dev.tributary.group.CoordinatorApi.Protocol;
import dev.tributary.group.assignor.PartitionAssignor;
import dev.tributary.group.assignor.PartitionAssignors;
import dev.tributary.group.assignor.Subscription;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The consumer's protocol embedded in the group protocol (protocol type {@code consumer}), as
 * Kafka's {@code ConsumerCoordinator} runs it beside {@code AbstractCoordinator}'s membership: the
 * subscription a member joins with ({@code metadata()}), the leader's assignment over every
 * member's subscription ({@code onLeaderElected}), and the subscription and partition counts the
 * assignment was made for, so that the member rejoins when either changes (its metadata snapshot).
 *
 * <p>Not thread-safe: confined to its {@link GroupMembership}, which calls it with its own lock
 * held. It asks the listener only for partition counts, which take no consumer lock.
 */
final class EmbeddedProtocol {
  private final List<String> assignors;
  private final GroupMembership.Listener listener;

  /** The topics of the last JoinGroup sent. */
  private Set<String> joinedTopics = Set.of();

  /**
   * The partition counts the current assignment was made for: of the member's topics, or, as
   * leader, of every member's topics. Empty before the first assignment.
   */
  private Map<String, Integer> assignedPartitionCounts = Map.of();

  EmbeddedProtocol(List<String> assignors, GroupMembership.Listener listener) {
    this.assignors = assignors;
    this.listener = listener;
  }

  /**
   * The protocols a JoinGroup offers, one per configured assignor in order of preference, each with
   * the subscription to {@code topics} (sorted); remembers {@code topics} as joined.
   */
  List<Protocol> joinProtocols(Set<String> topics, int generationId) {
    joinedTopics = Set.copyOf(topics);
    List<String> sorted = new ArrayList<>(new TreeSet<>(topics));
    byte[] metadata =
        ConsumerProtocol.encodeSubscription(new Subscription(sorted, List.of(), generationId));
    List<Protocol> protocols = new ArrayList<>();
    for (String name : assignors) {
      protocols.add(new Protocol(name, metadata));
    }
    return protocols;
  }

  /** The leader's job: run the chosen assignor over every member's subscription. */
  Map<String, byte[]> assignAsLeader(JoinResult result) {
    PartitionAssignor assignor = PartitionAssignors.byName(result.protocolName());
    Map<String, Subscription> subscriptions = new HashMap<>();
    Set<String> allTopics = new TreeSet<>();
    for (CoordinatorApi.JoinedMember m : result.members()) {
      Subscription s = ConsumerProtocol.decodeSubscription(m.metadata());
      subscriptions.put(m.memberId(), s);
      allTopics.addAll(s.topics());
    }
    Map<String, Integer> counts = listener.partitionCounts(allTopics);
    Map<String, List<TopicPartition>> assigned = assignor.assign(counts, subscriptions);
    Map<String, byte[]> encoded = new HashMap<>();
    assigned.forEach(
        (member, partitions) -> encoded.put(member, ConsumerProtocol.encodeAssignment(partitions)));
    assignedPartitionCounts = Map.copyOf(counts);
    return encoded;
  }

  /** A follower got its assignment: it was made for the joined topics' counts as of now. */
  void onFollowerAssigned() {
    assignedPartitionCounts = Map.copyOf(listener.partitionCounts(joinedTopics));
  }

  /**
   * Why a stable member must rejoin, now that it is subscribed to {@code topics}: its subscription
   * changed, or a topic its assignment covers changed its partition count; null if neither.
   */
  String rejoinReason(Set<String> topics) {
    if (!topics.equals(joinedTopics)) {
      return "subscription changed to " + new TreeSet<>(topics);
    }
    Map<String, Integer> now = listener.partitionCounts(assignedPartitionCounts.keySet());
    if (!now.equals(assignedPartitionCounts)) {
      return "a subscribed topic's partition count changed";
    }
    return null;
  }
}
