package dev.tributary.replication;

import dev.tributary.common.TopicPartition;
import dev.tributary.metadata.BrokerConfigControl;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.TopicImage;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Kafka's replication throttles (KIP-73), so that copying replicas for a move does not take the
 * bandwidth producers and in-sync followers need. Two bounds per broker, dynamic broker configs:
 * {@code leader.replication.throttled.rate} (bytes per second this broker sends, as a leader, to
 * followers of its throttled replicas) and {@code follower.replication.throttled.rate} (bytes per
 * second it fetches, as a follower, for its throttled replicas). Which replicas are throttled is
 * per topic: {@code leader.replication.throttled.replicas} and {@code
 * follower.replication.throttled.replicas}, lists of {@code partition:broker} (or {@code *}, every
 * replica); a broker throttles the partitions whose entry names it. {@code
 * kafka-reassign-partitions --throttle} sets both: the leader side on the replicas a move copies
 * from, the follower side on those it copies to.
 *
 * <p>As in Kafka, only a replica that is <em>not in the ISR</em> is ever held back (a throttle must
 * never slow an in-sync follower and with it {@code acks=all} producers), and only while the
 * measured rate is above the bound ({@link ByteRate}): a throttled partition then gets no bytes in
 * that fetch. Updated from each metadata image; read by fetch handlers and fetcher threads.
 */
public final class ReplicationThrottles {
  public static final String LEADER_THROTTLED_REPLICAS = "leader.replication.throttled.replicas";
  public static final String FOLLOWER_THROTTLED_REPLICAS =
      "follower.replication.throttled.replicas";

  private final int localBrokerId;
  private final ByteRate leader = new ByteRate();
  private final ByteRate follower = new ByteRate();
  private volatile Set<TopicPartition> leaderThrottled = Set.of();
  private volatile Set<TopicPartition> followerThrottled = Set.of();

  public ReplicationThrottles(int localBrokerId) {
    this.localBrokerId = localBrokerId;
  }

  /** Takes the rates and throttled replicas for this broker from {@code image}. */
  public void onMetadata(MetadataImage image) {
    leader.bound(rate(image, BrokerConfigControl.LEADER_THROTTLED_RATE));
    follower.bound(rate(image, BrokerConfigControl.FOLLOWER_THROTTLED_RATE));
    leaderThrottled = throttled(image, LEADER_THROTTLED_REPLICAS);
    followerThrottled = throttled(image, FOLLOWER_THROTTLED_REPLICAS);
  }

  private long rate(MetadataImage image, String name) {
    return image.brokerConfig(localBrokerId, name).map(Long::parseLong).orElse(Long.MAX_VALUE);
  }

  /** The partitions of every topic whose list {@code config} names this broker (or is *). */
  private Set<TopicPartition> throttled(MetadataImage image, String config) {
    Set<TopicPartition> found = new HashSet<>();
    for (TopicImage topic : image.topicsByName().values()) {
      String list = topic.configs().get(config);
      if (list == null || list.isBlank()) {
        continue;
      }
      if (list.strip().equals("*")) {
        topic.partitions().keySet().forEach(p -> found.add(new TopicPartition(topic.name(), p)));
        continue;
      }
      for (String entry : list.split(",")) {
        String[] partitionAndBroker = entry.strip().split(":");
        if (partitionAndBroker.length == 2
            && Integer.parseInt(partitionAndBroker[1].strip()) == localBrokerId) {
          found.add(
              new TopicPartition(topic.name(), Integer.parseInt(partitionAndBroker[0].strip())));
        }
      }
    }
    return Set.copyOf(found);
  }

  /**
   * Whether this leader sends nothing for {@code tp} to follower {@code replicaId} now: the replica
   * is throttled here, the follower is not in {@code isr}, and the leader's rate is above its
   * bound. The throttled set is asked first: it is empty unless a move is throttled, so an
   * unthrottled fetch costs one lookup in an empty set.
   */
  boolean leaderHoldsBack(TopicPartition tp, List<Integer> isr, int replicaId, long nowMs) {
    return leaderThrottled.contains(tp) && !isr.contains(replicaId) && leader.isExceeded(nowMs);
  }

  /** Counts {@code bytes} sent for {@code tp} to follower {@code replicaId}, if throttled. */
  void leaderSent(TopicPartition tp, List<Integer> isr, int replicaId, long bytes, long nowMs) {
    if (leaderThrottled.contains(tp) && !isr.contains(replicaId)) {
      leader.record(bytes, nowMs);
    }
  }

  /**
   * Whether this follower ({@code localBrokerId}, not in {@code isr}) leaves {@code tp} out of its
   * next fetch: throttled here, and the follower's rate is above its bound.
   */
  boolean followerHoldsBack(TopicPartition tp, List<Integer> isr, long nowMs) {
    return followerThrottled.contains(tp)
        && !isr.contains(localBrokerId)
        && follower.isExceeded(nowMs);
  }

  /** Counts {@code bytes} fetched for {@code tp} against the follower's bound, if throttled. */
  void followerFetched(TopicPartition tp, List<Integer> isr, long bytes, long nowMs) {
    if (followerThrottled.contains(tp) && !isr.contains(localBrokerId)) {
      follower.record(bytes, nowMs);
    }
  }

  /** Bytes per second over the window (for the dashboard and tests). */
  public double leaderRate(long nowMs) {
    return leader.rate(nowMs);
  }

  public double followerRate(long nowMs) {
    return follower.rate(nowMs);
  }
}
