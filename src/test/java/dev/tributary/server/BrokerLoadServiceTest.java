package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.replication.ReplicaHarness;
import dev.tributary.replication.ReplicaHarness.Placement;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * This broker's load ({@link BrokerLoadService}): every local replica's log size, and bytes-in for
 * the partitions it leads only. Broker 1 over a {@link LocalReplicas}.
 */
class BrokerLoadServiceTest {
  private static final TopicPartition LED = new TopicPartition("t", 0);
  private static final TopicPartition FOLLOWED = new TopicPartition("t", 1);

  @TempDir Path dir;
  private LocalReplicas broker;
  private ReplicaHarness harness;
  private boolean offline;
  private BrokerLoadService loads;

  @BeforeEach
  void setUp() {
    broker = new LocalReplicas(dir);
    harness = broker.harness;
    LogDirsService logDirs =
        new LogDirsService(broker, dir.resolve("logs"), () -> offline, AccessControl.ALLOW_ALL);
    loads = new BrokerLoadService(broker, logDirs, harness.clock);
    harness.placeTopic("t", Map.of(), Placement.replicated(0, 1, 2), Placement.replicated(0, 2, 1));
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  @Test
  void reportsEveryReplicasSizeAndTheBytesInOfThePartitionsItLeads() {
    harness.append(LED, ReplicaHarness.batch("a", "b", "c"));
    long size = harness.partition(LED).log().size();

    BrokerLoadReport report = loads.load();

    assertThat(report.brokerId()).isEqualTo(1);
    assertThat(report.sizeBytes()).containsOnlyKeys(LED, FOLLOWED).containsEntry(LED, size);
    assertThat(report.bytesInPerSec())
        .as("broker 2 leads t-1: its bytes-in is broker 2's to report")
        .containsOnlyKeys(LED)
        .containsEntry(LED, size / 10.0);
  }

  @Test
  void aPartitionWhoseLeadershipMovedAwayIsNoLongerReportedAsLed() {
    harness.append(LED, ReplicaHarness.batch("a"));
    harness.move(LED, Placement.replicated(1, 2, 1));

    assertThat(loads.load().bytesInPerSec()).isEmpty();
    assertThat(loads.load().sizeBytes()).containsKey(LED);
  }

  @Test
  void anOfflineLogDirectoryReportsNoSizes() {
    offline = true;

    assertThat(loads.load().sizeBytes()).isEmpty();
  }
}
