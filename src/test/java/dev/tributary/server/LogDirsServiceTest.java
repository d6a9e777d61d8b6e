package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.AuthorizationException;
import dev.tributary.common.errors.Errors;
import dev.tributary.replication.ReplicaHarness;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LogDirsService}: broker 1's log directory with the replicas it hosts, their sizes on disk
 * and offset lags, the file store's space; offline, an error and nothing else; READ on the cluster.
 */
class LogDirsServiceTest {
  private static final RequestContext ALICE = new RequestContext("User:alice", "10.0.0.1", false);

  @TempDir Path dir;
  private LocalReplicas broker;
  private final AtomicBoolean offline = new AtomicBoolean();
  private LogDirsService logDirs;

  private final TopicPartition orders0 = new TopicPartition("orders", 0);
  private final TopicPartition orders1 = new TopicPartition("orders", 1);
  private final TopicPartition audit0 = new TopicPartition("audit", 0);

  @BeforeEach
  void setUp() {
    broker = new LocalReplicas(dir);
    logDirs =
        new LogDirsService(broker, dir.resolve("logs"), offline::get, AccessControl.ALLOW_ALL);
    broker.harness.createTopic("orders", 2, Map.of(), ReplicaHarness.LOCAL);
    broker.harness.createTopic("audit", 1, Map.of(), ReplicaHarness.LOCAL);
    broker.harness.append(orders0, ReplicaHarness.batch("a", "b", "c"));
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  @Test
  void everyHostedReplicaWithItsSizeOnDiskAndNoLag() {
    LogDirsService.LogDir described = logDirs.describe(ALICE, null);

    assertThat(described.path()).isEqualTo(dir.resolve("logs").toAbsolutePath().toString());
    assertThat(described.error()).isEqualTo(Errors.NONE);
    assertThat(described.totalBytes()).isPositive();
    assertThat(described.usableBytes()).isBetween(0L, described.totalBytes());
    assertThat(described.replicas())
        .extracting(LogDirsService.ReplicaLog::topicPartition)
        .as("by topic, then partition")
        .containsExactly(audit0, orders0, orders1);
    assertThat(described.replicas())
        .extracting(LogDirsService.ReplicaLog::sizeBytes)
        .containsExactly(0L, broker.harness.partition(orders0).log().size(), 0L);
    assertThat(broker.harness.partition(orders0).log().size()).isPositive();
    assertThat(described.replicas())
        .extracting(LogDirsService.ReplicaLog::offsetLag)
        .as("a current replica's log end is never behind its own high watermark")
        .containsOnly(0L);
  }

  @Test
  void onlyThePartitionsAskedForThatAreHostedHere() {
    LogDirsService.LogDir described =
        logDirs.describe(
            ALICE, Set.of(orders1, new TopicPartition("orders", 7), new TopicPartition("x", 0)));

    assertThat(described.replicas())
        .extracting(LogDirsService.ReplicaLog::topicPartition)
        .containsExactly(orders1);
    assertThat(logDirs.describe(ALICE, Set.of()).replicas()).isEmpty();
  }

  @Test
  void anOfflineDirectoryIsAStorageErrorWithoutReplicas() {
    offline.set(true);

    LogDirsService.LogDir described = logDirs.describe(ALICE, null);

    assertThat(described.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
    assertThat(described.path()).isEqualTo(dir.resolve("logs").toAbsolutePath().toString());
    assertThat(described.replicas()).isEmpty();
  }

  @Test
  void describingNeedsReadOnTheCluster() {
    AtomicInteger denials = new AtomicInteger();
    LogDirsService secured =
        new LogDirsService(
            broker, dir.resolve("logs"), offline::get, broker.accessControl(denials));

    assertThatThrownBy(() -> secured.describe(ALICE, null))
        .isInstanceOfSatisfying(
            AuthorizationException.class,
            e -> assertThat(e.error()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED));
    assertThat(denials).hasValue(1);

    broker.grant(
        "User:alice", AclOperation.READ, ResourceType.CLUSTER, AccessControl.clusterName());
    assertThat(secured.describe(ALICE, null).replicas()).hasSize(3);
  }
}
