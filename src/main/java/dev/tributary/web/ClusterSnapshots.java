package dev.tributary.web;

import dev.tributary.common.TopicPartition;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicImage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Builds the cluster-wide {@link ClusterSnapshot} from one broker's metadata image and the {@link
 * LocalSnapshot}s of the partition leaders. Pure: no I/O, no clock, so it is tested with hand-made
 * images and answers.
 *
 * <p>Consumer groups and their events come from the coordinators' answers ({@link ClusterGroups}).
 *
 * <p>Placement and leadership (leader, epoch, replicas, ISR) always come from the image; offsets
 * only from the leader's own answer, and only if that answer says it leads the partition, because a
 * follower's high watermark lags the leader's and would show a learner the wrong committed point.
 */
final class ClusterSnapshots {
  private ClusterSnapshots() {}

  /** Who is asking, and what the answer's header carries besides the image. */
  record Context(
      String clusterId,
      int localBrokerId,
      int controllerId,
      long controllerEpoch,
      long nowMs,
      boolean faultActions,
      int defaultMinInsyncReplicas,
      ClusterSnapshot.DemoRow demo,
      boolean networkFaults) {

    Context(
        String clusterId,
        int localBrokerId,
        int controllerId,
        long controllerEpoch,
        long nowMs,
        boolean faultActions,
        int defaultMinInsyncReplicas,
        ClusterSnapshot.DemoRow demo) {
      this(
          clusterId,
          localBrokerId,
          controllerId,
          controllerEpoch,
          nowMs,
          faultActions,
          defaultMinInsyncReplicas,
          demo,
          false);
    }

    Context(
        String clusterId,
        int localBrokerId,
        int controllerId,
        long controllerEpoch,
        long nowMs,
        boolean faultActions,
        int defaultMinInsyncReplicas) {
      this(
          clusterId,
          localBrokerId,
          controllerId,
          controllerEpoch,
          nowMs,
          faultActions,
          defaultMinInsyncReplicas,
          null);
    }
  }

  /**
   * The brokers a one-off cluster snapshot asks for their local snapshots: every registered,
   * unfenced broker other than {@code localBrokerId} (what it leads gives the partitions' offsets,
   * and every broker, leader or not, has its own row: a paused fetcher, reachability, client
   * connections), plus any leader still fenced in the image. A fenced broker that leads nothing is
   * left out: it is most likely down, and asking would only cost the page the fetch timeout.
   */
  static Set<Integer> brokersToAsk(MetadataImage image, int localBrokerId) {
    Set<Integer> ask = new TreeSet<>();
    for (BrokerImage broker : image.brokers().values()) {
      if (!broker.fenced()) {
        ask.add(broker.brokerId());
      }
    }
    for (TopicImage topic : image.topicsByName().values()) {
      for (PartitionImage p : topic.partitions().values()) {
        if (p.leader() >= 0) {
          ask.add(p.leader());
        }
      }
    }
    ask.remove(localBrokerId);
    return ask;
  }

  /**
   * Merges the image with the leaders' answers.
   *
   * @param answers the local snapshots that arrived, by broker id (the local one included)
   * @param unreachable brokers that were asked and did not answer (error, timeout, bad body)
   * @param rates each topic's throughput ({@link Throughput}); topics missing show 0
   * @param brokerRates each broker's throughput in; brokers missing show 0
   */
  static ClusterSnapshot merge(
      Context context,
      MetadataImage image,
      Map<Integer, LocalSnapshot> answers,
      Set<Integer> unreachable,
      Map<String, Throughput.Rates> rates,
      Map<Integer, Throughput.BrokerRates> brokerRates) {
    List<ClusterSnapshot.BrokerRow> brokers = new ArrayList<>();
    for (BrokerImage b : image.brokers().values()) {
      LocalSnapshot answer = answers.get(b.brokerId());
      Throughput.BrokerRates in =
          brokerRates.getOrDefault(b.brokerId(), Throughput.BrokerRates.ZERO);
      Boolean reachable =
          answer != null ? Boolean.TRUE : unreachable.contains(b.brokerId()) ? Boolean.FALSE : null;
      brokers.add(
          new ClusterSnapshot.BrokerRow(
              b.brokerId(),
              b.host(),
              b.port(),
              b.rack().orElse(null),
              b.fenced() ? "fenced" : "alive",
              b.brokerEpoch(),
              b.incarnationId().toString(),
              b.brokerId() == context.controllerId(),
              reachable,
              answer == null ? 0 : answer.fetchPausedUntilMs(),
              listeners(b),
              answer == null ? null : answer.clientConnectionCount(),
              answer == null || answer.clientConnectionCount() == null
                  ? null
                  : answer.clientConnections().stream()
                      .map(ClusterSnapshots::clientConnectionRow)
                      .toList(),
              answer == null ? null : answer.replicaLagTimeMaxMs(),
              in.recordsInPerSec(),
              in.bytesInPerSec()));
    }
    Map<Integer, Map<TopicPartition, LocalSnapshot.LocalPartition>> ledByBroker = new HashMap<>();
    answers.forEach((brokerId, answer) -> ledByBroker.put(brokerId, ledPartitions(answer)));

    List<ClusterSnapshot.PartitionRow> partitions = new ArrayList<>();
    List<ClusterSnapshot.TopicRow> topics = new ArrayList<>();
    for (TopicImage topic : image.topicsByName().values()) {
      for (PartitionImage p : topic.partitions().values()) {
        partitions.add(partitionRow(topic.name(), p, ledByBroker));
      }
      Throughput.Rates r = rates.getOrDefault(topic.name(), Throughput.Rates.ZERO);
      topics.add(
          new ClusterSnapshot.TopicRow(
              topic.name(),
              topic.partitions().size(),
              replicationFactor(topic),
              minInsyncReplicas(topic, context.defaultMinInsyncReplicas()),
              r.recordsInPerSec(),
              r.recordsOutPerSec()));
    }
    return new ClusterSnapshot(
        ClusterSnapshot.SCOPE,
        new ClusterSnapshot.Header(
            context.clusterId(),
            context.localBrokerId(),
            context.controllerId(),
            context.controllerEpoch(),
            image.lastOffset(),
            context.nowMs(),
            context.faultActions(),
            context.demo(),
            context.networkFaults()),
        brokers,
        partitions,
        topics,
        image.events().stream().map(ClusterSnapshot.EventRow::of).toList(),
        ClusterGroups.merge(image, answers, partitions),
        ClusterGroups.events(answers));
  }

  /** Merges without brokers' rates: every broker reads 0 in (tests of other parts of the view). */
  static ClusterSnapshot merge(
      Context context,
      MetadataImage image,
      Map<Integer, LocalSnapshot> answers,
      Set<Integer> unreachable,
      Map<String, Throughput.Rates> rates) {
    return merge(context, image, answers, unreachable, rates, Map.of());
  }

  private static List<ClusterSnapshot.ListenerRow> listeners(BrokerImage b) {
    return b.listeners().stream()
        .map(
            l ->
                new ClusterSnapshot.ListenerRow(
                    l.name(), l.host(), l.port(), l.securityProtocol().name()))
        .toList();
  }

  /** A connection as its broker described it; its requests' total counted here. */
  private static ClusterSnapshot.ClientConnectionRow clientConnectionRow(
      LocalSnapshot.LocalConnection c) {
    long total = 0;
    for (Long count : c.requests().values()) {
      total += count == null ? 0 : count; // another process's JSON
    }
    return new ClusterSnapshot.ClientConnectionRow(
        c.connectionId(),
        c.clientId(),
        c.softwareName(),
        c.softwareVersion(),
        c.clientAddress(),
        c.principal(),
        c.securityProtocol(),
        c.connectedSinceMs(),
        c.lastRequestMs(),
        c.requests(),
        total);
  }

  /** The partitions a local snapshot says its broker leads. */
  static Map<TopicPartition, LocalSnapshot.LocalPartition> ledPartitions(LocalSnapshot answer) {
    Map<TopicPartition, LocalSnapshot.LocalPartition> led = new HashMap<>();
    for (LocalSnapshot.LocalPartition p : answer.partitions()) {
      // Another process's JSON: skip a row we could not key rather than fail the whole page.
      if (p.leader() && p.offsets() != null && p.topic() != null && p.partition() >= 0) {
        led.put(new TopicPartition(p.topic(), p.partition()), p);
      }
    }
    return led;
  }

  /**
   * Placement from the image; offsets from the leader's answer, if it answered and says it leads
   * the partition.
   */
  private static ClusterSnapshot.PartitionRow partitionRow(
      String topic,
      PartitionImage p,
      Map<Integer, Map<TopicPartition, LocalSnapshot.LocalPartition>> ledByBroker) {
    LocalSnapshot.LocalPartition led = null;
    ClusterSnapshot.PartitionState state;
    if (p.leader() < 0) {
      state = ClusterSnapshot.PartitionState.OFFLINE;
    } else if (!ledByBroker.containsKey(p.leader())) {
      state = ClusterSnapshot.PartitionState.UNREACHABLE;
    } else {
      led = ledByBroker.get(p.leader()).get(new TopicPartition(topic, p.partition()));
      state =
          led == null
              ? ClusterSnapshot.PartitionState.LEADER_NOT_AVAILABLE
              : ClusterSnapshot.PartitionState.ONLINE;
    }
    List<Integer> osr = p.replicas().stream().filter(r -> !p.isr().contains(r)).toList();
    return new ClusterSnapshot.PartitionRow(
        topic + "-" + p.partition(),
        topic,
        p.partition(),
        state.jsonName(),
        p.leader(),
        p.leaderEpoch(),
        p.replicas(),
        p.isr(),
        osr,
        p.addingReplicas(),
        p.removingReplicas(),
        led == null ? null : offsetsRow(led.offsets()));
  }

  private static ClusterSnapshot.OffsetsRow offsetsRow(LocalSnapshot.Offsets o) {
    return new ClusterSnapshot.OffsetsRow(
        o.logStartOffset(),
        o.highWatermark(),
        o.logEndOffset(),
        o.sizeBytes(),
        o.segments(),
        o.statusLine(),
        o.replicas().stream()
            .map(
                r ->
                    new ClusterSnapshot.ReplicaRow(
                        r.brokerId(),
                        r.inSync(),
                        r.logEndOffset(),
                        r.lag(),
                        r.lastFetchAgeMs(),
                        r.outOfSyncMs()))
            .toList());
  }

  /**
   * The largest partition's replica count, a partition being moved counted by its target (as
   * Kafka's topic description does): the replicas leaving are not part of the factor.
   */
  private static int replicationFactor(TopicImage topic) {
    return topic.partitions().values().stream()
        .mapToInt(p -> p.targetReplicas().size())
        .max()
        .orElse(0);
  }

  /** The topic's override, else the broker's default (as the produce path resolves it). */
  private static int minInsyncReplicas(TopicImage topic, int brokerDefault) {
    String value = topic.configs().get("min.insync.replicas");
    try {
      return value == null ? brokerDefault : Integer.parseInt(value);
    } catch (NumberFormatException e) {
      return brokerDefault;
    }
  }
}
