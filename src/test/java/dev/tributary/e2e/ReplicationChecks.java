package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.e2e.ClusterClient.LocalReplica;
import dev.tributary.e2e.ClusterClient.PartitionState;
import dev.tributary.e2e.HistoryChecker.View;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The waits and views shared by the replication end-to-end tests ({@link ReplicationFaultsIT},
 * {@link ReplicationChaosIT}): "healed" as every broker reports it, and the copies of a topic that
 * {@link HistoryChecker} compares.
 */
final class ReplicationChecks {
  private ReplicationChecks() {}

  /**
   * Waits until every partition of {@code topic} has a leader, an ISR of all its replicas, and
   * every replica at the leader's log end offset with its high watermark there too (nothing in
   * flight), as each broker reports itself.
   */
  static void awaitFullIsr(
      TestCluster cluster, ClusterClient client, String topic, int partitions, Duration atMost) {
    await(topic + " fully replicated")
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              List<PartitionState> states = client.partitions(topic);
              if (states.size() != partitions) {
                return false;
              }
              for (PartitionState p : states) {
                if (p.leader() < 0 || !new HashSet<>(p.isr()).equals(new HashSet<>(p.replicas()))) {
                  return false;
                }
                Optional<LocalReplica> leader =
                    client.localReplica(cluster.get(p.leader()), topic, p.partition());
                if (leader.isEmpty()
                    || !leader.get().leader()
                    || leader.get().highWatermark() != leader.get().logEndOffset()) {
                  return false;
                }
                for (int id : p.replicas()) {
                  Optional<LocalReplica> replica =
                      client.localReplica(cluster.get(id), topic, p.partition());
                  if (replica.isEmpty()
                      || replica.get().logEndOffset() != leader.get().logEndOffset()) {
                    return false;
                  }
                }
              }
              return true;
            });
  }

  /**
   * The views to check: the leaders' copy through the API, then each broker's own files for the
   * partitions it hosts. Call only after {@link #awaitFullIsr}.
   */
  static List<View> views(TestCluster cluster, ClusterClient client, String topic, int partitions)
      throws Exception {
    List<PartitionState> states = client.partitions(topic);
    assertThat(states).hasSize(partitions);
    Map<Integer, List<HistoryChecker.Entry>> api = new TreeMap<>();
    for (PartitionState p : states) {
      api.put(p.partition(), client.readPartition(cluster.get(p.leader()), topic, p.partition()));
    }
    List<View> views = new ArrayList<>(List.of(new View("leader via API", api)));
    for (BrokerProcess broker : cluster.all()) {
      Map<Integer, List<HistoryChecker.Entry>> disk = new LinkedHashMap<>();
      for (PartitionState p : states) {
        if (p.replicas().contains(broker.brokerId())) {
          disk.put(p.partition(), ReplicaLogs.read(broker.dataDir(), topic, p.partition()));
        }
      }
      views.add(new View("broker " + broker.brokerId() + " files", disk));
    }
    assertThat(views).hasSize(1 + cluster.all().size());
    return views;
  }

  /**
   * The newest (highest base offset) segment file of {@code topic-partition} in a broker's data
   * directory.
   */
  static Path activeSegment(Path brokerDataDir, String topic, int partition) throws IOException {
    Path dir = brokerDataDir.resolve("logs").resolve(topic + "-" + partition);
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> f.getFileName().toString().matches("\\d{20}\\.log"))
          .max(Path::compareTo)
          .orElseThrow(() -> new IllegalStateException("no segment in " + dir));
    }
  }
}
