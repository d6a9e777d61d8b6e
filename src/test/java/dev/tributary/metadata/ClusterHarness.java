package dev.tributary.metadata;

import dev.tributary.common.Uuid;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A controller's view for tests: a {@link ClusterControl} with a fake clock ({@link #nowMs}), and
 * the image that the records it computes replay into, one offset per record, as a quorum would
 * commit them. No threads, no I/O.
 */
final class ClusterHarness {
  static final long SESSION_TIMEOUT_MS = 1_000;

  ClusterControl cluster = new ClusterControl(new BrokerHeartbeatManager(SESSION_TIMEOUT_MS));
  final TopicControl topics;
  final List<MetadataRecord> log = new ArrayList<>();
  MetadataImage image = MetadataImage.EMPTY;
  long nowMs = 1_000_000;

  ClusterHarness(long seed) {
    topics = new TopicControl(new Random(seed));
  }

  /** Commits {@code records} (replays them in order, each at the next offset) and returns them. */
  List<MetadataRecord> commit(List<MetadataRecord> records) {
    for (MetadataRecord record : records) {
      image = image.replay(image.lastOffset() + 1, record);
      log.add(record);
    }
    return records;
  }

  static Uuid incarnation(int brokerId, int generation) {
    return new Uuid(brokerId, generation);
  }

  List<MetadataRecord> register(int brokerId, Uuid incarnationId) {
    return commit(
        cluster.register(
            image,
            brokerId,
            incarnationId,
            List.of(AdvertisedListener.http("localhost", 9000 + brokerId)),
            nowMs));
  }

  /** A heartbeat from a broker that has replayed everything committed so far. */
  ClusterControl.HeartbeatResult heartbeat(int brokerId) {
    return heartbeat(brokerId, epoch(brokerId), image.lastOffset());
  }

  ClusterControl.HeartbeatResult heartbeat(int brokerId, long brokerEpoch, long metadataOffset) {
    return heartbeat(brokerId, brokerEpoch, metadataOffset, false);
  }

  /** A heartbeat that also says whether the broker's log directory is offline. */
  ClusterControl.HeartbeatResult heartbeat(
      int brokerId, long brokerEpoch, long metadataOffset, boolean logDirOffline) {
    ClusterControl.HeartbeatResult result =
        cluster.heartbeat(image, brokerId, brokerEpoch, metadataOffset, logDirOffline, nowMs);
    commit(result.records());
    return result;
  }

  List<MetadataRecord> fenceStaleBrokers() {
    return commit(cluster.fenceStaleBrokers(image, nowMs));
  }

  /** Registers and unfences each of {@code brokerIds} (first incarnation). */
  void startBrokers(int... brokerIds) {
    for (int id : brokerIds) {
      register(id, incarnation(id, 1));
      heartbeat(id);
    }
  }

  TopicImage createTopic(String name, int partitions, int replicationFactor) {
    commit(topics.createTopic(image, name, partitions, replicationFactor, Map.of()));
    return image.topic(name).orElseThrow();
  }

  long epoch(int brokerId) {
    return image.broker(brokerId).orElseThrow().brokerEpoch();
  }

  ClusterControl.BrokerState state(int brokerId) {
    return ClusterControl.BrokerState.of(image, brokerId);
  }

  PartitionImage partition(String topic, int partition) {
    return image.topic(topic).orElseThrow().partitions().get(partition);
  }

  /** Sets one partition's ISR and leader by hand, as the replication issue's ISR expansion will. */
  void setIsr(String topic, int partition, List<Integer> isr, int leader) {
    PartitionImage p = partition(topic, partition);
    Uuid topicId = image.topic(topic).orElseThrow().topicId();
    commit(
        List.of(
            new MetadataRecord.PartitionChange(
                topicId,
                partition,
                p.replicas(),
                isr,
                leader,
                leader == p.leader() ? p.leaderEpoch() : p.leaderEpoch() + 1,
                p.partitionEpoch() + 1)));
  }

  static List<String> types(List<MetadataRecord> records) {
    return records.stream().map(r -> r.getClass().getSimpleName()).toList();
  }
}
