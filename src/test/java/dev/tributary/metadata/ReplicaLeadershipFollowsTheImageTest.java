package dev.tributary.metadata;

import static dev.tributary.metadata.ClusterHarness.SESSION_TIMEOUT_MS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.LeaderNotAvailableException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.log.LogManager;
import dev.tributary.replication.FetchPartitionData;
import dev.tributary.replication.ReplicaManager;
import dev.tributary.replication.ReplicaManagerCalls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker's replicas follow the leadership the controller's fencing decides: an offline partition
 * answers LEADER_NOT_AVAILABLE, a partition led elsewhere NOT_LEADER_OR_FOLLOWER naming the leader,
 * and the log stays. (Lives beside the controller code it exercises; ReplicaManager's own tests are
 * in the replication package.)
 */
class ReplicaLeadershipFollowsTheImageTest {
  private static final Time FIXED_TIME =
      new Time() {
        @Override
        public long milliseconds() {
          return 1_700_000_000_000L;
        }

        @Override
        public long nanoseconds() {
          return 0;
        }
      };
  private static final Scheduler NO_TIMEOUTS = (delayMs, task) -> () -> {};

  @TempDir Path dir;
  private final ClusterHarness h = new ClusterHarness(3);
  private final TopicPartition t0 = new TopicPartition("t", 0);
  private LogManager logManager;
  private ReplicaManager broker1;

  @BeforeEach
  void setUp() {
    logManager = new LogManager(dir, FIXED_TIME);
    logManager.loadLogs(tp -> Optional.empty());
    broker1 = new ReplicaManager(1, logManager, NO_TIMEOUTS, Runnable::run);
    h.startBrokers(1, 2, 3);
    Uuid topicId = new Uuid(7, 7);
    h.commit(
        List.of(
            new MetadataRecord.TopicCreated(topicId, "t"),
            new MetadataRecord.PartitionChange(topicId, 0, List.of(1, 2, 3), List.of(1), 1, 0, 0)));
    broker1.onMetadataUpdate(h.image);
  }

  @AfterEach
  void tearDown() {
    broker1.shutdown();
    logManager.shutdown();
  }

  private void expireSessionOf(int silent) {
    h.nowMs += SESSION_TIMEOUT_MS;
    h.image.unfencedBrokerIds().stream().filter(id -> id != silent).forEach(h::heartbeat);
    h.fenceStaleBrokers();
    broker1.onMetadataUpdate(h.image);
  }

  @Test
  void anOfflinePartitionAnswersLeaderNotAvailableAndIsLedAgainWhenItsBrokerReturns() {
    assertThat(broker1.leaderPartition(t0).leaderEpoch()).isZero();
    CompletableFuture<FetchPartitionData> poll =
        ReplicaManagerCalls.fetch(broker1, t0, 0, 1 << 20, 5_000);
    expireSessionOf(1);
    assertThat(poll).isCompletedExceptionally();
    assertThatThrownBy(poll::join)
        .isInstanceOf(CompletionException.class)
        .as("the waiter re-reads against the new image: no leader now")
        .hasCauseInstanceOf(LeaderNotAvailableException.class);
    assertThatThrownBy(() -> broker1.leaderPartition(t0))
        .isInstanceOf(LeaderNotAvailableException.class)
        .hasMessageContaining("[1]");
    assertThat(broker1.partition(t0)).isPresent();
    assertThat(Files.isDirectory(dir.resolve("t-0"))).isTrue();

    h.heartbeat(1);
    broker1.onMetadataUpdate(h.image);
    assertThat(broker1.leaderPartition(t0).leaderEpoch()).isEqualTo(2);
  }

  @Test
  void whenAnotherIsrMemberTakesOverThisBrokerResignsAndNamesTheNewLeader() {
    h.setIsr("t", 0, List.of(1, 3), 1);
    broker1.onMetadataUpdate(h.image);
    expireSessionOf(1);
    assertThat(h.partition("t", 0).leader()).isEqualTo(3);
    assertThatThrownBy(() -> broker1.leaderPartition(t0))
        .isInstanceOf(NotLeaderOrFollowerException.class)
        .hasMessageContaining("leader is broker 3");
    assertThat(broker1.partition(t0).orElseThrow().isLeader()).isFalse();
  }

  @Test
  void aFollowerReplicaKeepsItsLogAndNamesTheLeader() {
    ReplicaManager broker2 = new ReplicaManager(2, logManager, NO_TIMEOUTS, Runnable::run);
    broker2.onMetadataUpdate(h.image);
    assertThat(broker2.partition(t0)).isPresent();
    assertThat(broker2.partition(t0).orElseThrow().isLeader()).isFalse();
    assertThatThrownBy(() -> broker2.leaderPartition(t0))
        .isInstanceOf(NotLeaderOrFollowerException.class)
        .hasMessageContaining("leader is broker 1");
  }
}
