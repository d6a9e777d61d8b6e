package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.InvalidReplicationFactorException;
import dev.tributary.common.errors.StaleBrokerEpochException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller's request path over a real (local) metadata log, with time passed in by the test.
 */
class ControllerTest {
  private static final long SESSION_TIMEOUT_MS = 9_000;
  @TempDir Path dir;

  private static List<AdvertisedListener> http(String host, int port) {
    return List.of(AdvertisedListener.http(host, port));
  }

  private static Controller controller(LocalMetadataLog log) {
    return new Controller(
        log, new TopicControl(new Random(1)), SESSION_TIMEOUT_MS, dev.tributary.common.Time.SYSTEM);
  }

  @Test
  void aBrokerCanLeadOnlyOnceItsRegistrationIsFollowedByACaughtUpHeartbeat() {
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      Controller controller = controller(log);
      long epoch = controller.registerBroker(1, new Uuid(1, 1), http("localhost", 9092), 0);
      assertThat(log.image().broker(1).orElseThrow().fenced()).isTrue();
      assertThatThrownBy(() -> controller.createTopic("t", 1, 1, Map.of()))
          .isInstanceOf(InvalidReplicationFactorException.class)
          .hasMessageContaining("0 of 1");
      assertThat(controller.registerBroker(1, new Uuid(1, 1), http("localhost", 9092), 5))
          .isEqualTo(epoch);
      assertThat(controller.heartbeat(1, epoch, log.image().lastOffset(), 10)).isFalse();
      assertThat(controller.createTopic("t", 2, 1, Map.of()).partitions().values())
          .allSatisfy(p -> assertThat(p.leader()).isEqualTo(1));
      assertThatThrownBy(() -> controller.heartbeat(1, epoch + 1, log.image().lastOffset(), 10))
          .isInstanceOf(StaleBrokerEpochException.class);
    }
  }

  @Test
  void maybeFenceStaleBrokersFencesAtTheDeadlineAndSaysWhenToRunAgain() {
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      Controller controller = controller(log);
      long epoch1 = controller.registerBroker(1, new Uuid(1, 1), http("h", 1), 0);
      controller.heartbeat(1, epoch1, log.image().lastOffset(), 0);
      long epoch2 = controller.registerBroker(2, new Uuid(2, 1), http("h", 2), 0);
      controller.heartbeat(2, epoch2, log.image().lastOffset(), 3_000);
      assertThat(controller.maybeFenceStaleBrokers(1_000)).isEqualTo(SESSION_TIMEOUT_MS - 1_000);
      assertThat(controller.maybeFenceStaleBrokers(SESSION_TIMEOUT_MS)).isEqualTo(3_000);
      assertThat(log.image().unfencedBrokerIds()).containsExactly(2);
      assertThat(controller.maybeFenceStaleBrokers(SESSION_TIMEOUT_MS + 3_000))
          .isEqualTo(SESSION_TIMEOUT_MS);
      assertThat(log.image().unfencedBrokerIds()).isEmpty();
    }
  }

  @Test
  void everyCommittedChangeLandsOnTheTimelineWithTheControllersClockAndItsReason() {
    long[] nowMs = {0};
    dev.tributary.common.Time clock =
        new dev.tributary.common.Time() {
          @Override
          public long milliseconds() {
            return nowMs[0];
          }

          @Override
          public long nanoseconds() {
            return nowMs[0] * 1_000_000;
          }
        };
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      Controller controller =
          new Controller(log, new TopicControl(new Random(1)), SESSION_TIMEOUT_MS, clock);
      controller.onBecomeActive(1, 4, 0);
      nowMs[0] = 1_000;
      long epoch = controller.registerBroker(1, new Uuid(1, 1), http("h", 1), 0);
      nowMs[0] = 2_000;
      controller.heartbeat(1, epoch, log.image().lastOffset(), 0);
      controller.heartbeat(1, epoch, log.image().lastOffset(), 0); // changes nothing: no event
      nowMs[0] = 3_000;
      controller.createTopic("t", 2, 1, Map.of());
      nowMs[0] = 4_000;
      controller.fenceBroker(1, epoch, "controlled shutdown");

      List<ClusterEvent> events = log.image().events();
      assertThat(events)
          .extracting(ClusterEvent::type)
          .containsExactly(
              ClusterEvent.Type.CONTROLLER_ELECTED,
              ClusterEvent.Type.BROKER_REGISTERED,
              ClusterEvent.Type.BROKER_UNFENCED,
              ClusterEvent.Type.TOPIC_CREATED,
              ClusterEvent.Type.PARTITIONS_ADDED,
              ClusterEvent.Type.PARTITIONS_ADDED,
              ClusterEvent.Type.BROKER_FENCED,
              ClusterEvent.Type.LEADER_CHANGED,
              ClusterEvent.Type.LEADER_CHANGED);
      assertThat(events)
          .extracting(ClusterEvent::timestampMs)
          .containsExactly(0L, 1_000L, 2_000L, 3_000L, 3_000L, 3_000L, 4_000L, 4_000L, 4_000L);
      assertThat(events.get(0).text()).contains("broker 1", "Raft term 4");
      // The topic's partitions are its creation's consequences, in its batch.
      assertThat(events.subList(4, 6))
          .allSatisfy(
              e -> {
                assertThat(e.offset()).isEqualTo(events.get(3).offset());
                assertThat(e.causeIndex()).isEqualTo(events.get(3).index());
              });
      // A controlled shutdown moves leadership away first, then fences: both in one batch, with one
      // reason, and the fencing is put first as the cause of the moves.
      assertThat(events.get(7).text()).isEqualTo("t-0 offline: leader 1 → none (leader epoch 1)");
      assertThat(events.get(6).reason()).isEqualTo("broker 1 fenced: controlled shutdown");
      assertThat(events.get(7).reason()).isEqualTo("broker 1 fenced: controlled shutdown");
      assertThat(events.subList(7, 9))
          .allSatisfy(
              e -> {
                assertThat(e.offset()).isEqualTo(events.get(6).offset());
                assertThat(e.causeIndex()).isEqualTo(events.get(6).index()).isZero();
              });
      assertThat(log.image().events())
          .extracting(ClusterEvent::offset)
          .isSorted()
          .doesNotContain(-1L);
    }
  }

  @Test
  void aControllerThatBecomesActiveGivesEveryBrokerAFullSession() {
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      Controller first = controller(log);
      long epoch = first.registerBroker(1, new Uuid(1, 1), http("h", 1), 0);
      first.heartbeat(1, epoch, log.image().lastOffset(), 0);
      Controller successor = controller(log);
      successor.onBecomeActive(1, 2, 60_000);
      assertThat(successor.maybeFenceStaleBrokers(60_000)).isEqualTo(SESSION_TIMEOUT_MS);
      assertThat(successor.maybeFenceStaleBrokers(60_000 + SESSION_TIMEOUT_MS - 1)).isEqualTo(1);
      assertThat(log.image().unfencedBrokerIds()).containsExactly(1);
      successor.maybeFenceStaleBrokers(60_000 + SESSION_TIMEOUT_MS);
      assertThat(log.image().unfencedBrokerIds()).isEmpty();
    }
  }

  @Test
  void aRestartedSingleBrokerLeadsItsPartitionsAgainWithABumpedEpoch() {
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      Controller controller = controller(log);
      long epoch = controller.registerBroker(1, new Uuid(1, 1), http("h", 1), 0);
      controller.heartbeat(1, epoch, log.image().lastOffset(), 0);
      controller.createTopic("t", 1, 1, Map.of());
    }
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      Controller controller = controller(log);
      long epoch = controller.registerBroker(1, new Uuid(1, 2), http("h", 1), 100);
      assertThat(log.image().topic("t").orElseThrow().partitions().get(0).leader()).isEqualTo(-1);
      controller.heartbeat(1, epoch, log.image().lastOffset(), 100);
      PartitionImage p = log.image().topic("t").orElseThrow().partitions().get(0);
      assertThat(p.leader()).isEqualTo(1);
      assertThat(p.leaderEpoch()).isEqualTo(2);
      assertThat(p.isr()).containsExactly(1);
    }
  }

  @Test
  void aValidateOnlyRequestIsCheckedAgainstTheImageAndCommitsNothing() {
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      Controller controller = controller(log);
      long epoch = controller.registerBroker(1, new Uuid(1, 1), http("h", 1), 0);
      controller.heartbeat(1, epoch, log.image().lastOffset(), 0);
      long before = log.image().lastOffset();

      controller.createTopic(NewTopic.placed("t", 3, 1, Map.of()), true);
      assertThatThrownBy(() -> controller.createTopic(NewTopic.placed("t", 3, 2, Map.of()), true))
          .isInstanceOf(InvalidReplicationFactorException.class);
      controller.createTopic("u", 1, 1, Map.of());
      controller.createPartitions(NewPartitions.placed("u", 4), true);
      controller.alterConfigs("u", List.of(ConfigChange.set("retention.ms", "5")), true);

      assertThat(log.image().topic("t")).isEmpty();
      assertThat(log.image().topic("u").orElseThrow().partitionCount()).isEqualTo(1);
      assertThat(log.image().topic("u").orElseThrow().configs()).isEmpty();
      assertThat(log.image().lastOffset())
          .as("only the real create of u committed")
          .isGreaterThan(before);
      long afterCreate = log.image().lastOffset();
      controller.alterConfigs("u", List.of(ConfigChange.set("retention.ms", "5")), true);
      assertThat(log.image().lastOffset()).isEqualTo(afterCreate);
    }
  }

  @Test
  void aPreferredReplicaBackInSyncLeadsAgainWhenElected() {
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      Controller controller = controller(log);
      long epoch1 = controller.registerBroker(1, new Uuid(1, 1), http("h", 1), 0);
      controller.heartbeat(1, epoch1, log.image().lastOffset(), 0);
      long epoch2 = controller.registerBroker(2, new Uuid(2, 1), http("h", 2), 0);
      controller.heartbeat(2, epoch2, log.image().lastOffset(), 0);
      controller.createTopic(NewTopic.assigned("t", List.of(List.of(1, 2)), Map.of()), false);
      TopicPartition t0 = new TopicPartition("t", 0);
      assertThat(controller.electPreferredLeaders(List.of(t0)).get(t0).error())
          .isEqualTo(Errors.ELECTION_NOT_NEEDED);

      controller.fenceBroker(1, epoch1, "controlled shutdown"); // leadership moves to 2
      controller.heartbeat(1, epoch1, log.image().lastOffset(), 10); // back, but not in sync
      assertThat(controller.electPreferredLeaders(List.of(t0)).get(t0).error())
          .isEqualTo(Errors.PREFERRED_LEADER_NOT_AVAILABLE);
      PartitionImage led = log.image().topic("t").orElseThrow().requirePartition(0);
      controller.alterPartition(
          log.image().topic("t").orElseThrow().topicId(),
          0,
          2,
          led.leaderEpoch(),
          led.partitionEpoch(),
          List.of(2, 1),
          Map.of(1, epoch1),
          "caught up");

      assertThat(controller.electPreferredLeaders(List.of(t0)))
          .containsExactly(Map.entry(t0, ElectionOutcome.ELECTED));
      PartitionImage elected = log.image().topic("t").orElseThrow().requirePartition(0);
      assertThat(elected.leader()).isEqualTo(1);
      assertThat(elected.leaderEpoch()).isEqualTo(led.leaderEpoch() + 1);
      assertThat(controller.electPreferredLeaders(null)).as("nothing left to elect").isEmpty();
    }
  }

  /**
   * A truncation changes no metadata; the controller records it alone on the timeline, saying which
   * offsets went and, above the high watermark, that only acks=1 or acks=0 producers can have lost
   * them.
   */
  @Test
  void aReplicasTruncationLandsOnTheTimelineAloneWithWhatItMeansForProducers() {
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      Controller controller = controller(log);
      long before = log.image().lastOffset();
      controller.recordEvent(
          ClusterEvents.replicaTruncated("ledger", 2, 1, 3, 5, 440, 445, 440, 7_000));
      controller.recordEvent(
          ClusterEvents.replicaTruncated("ledger", 2, 2, 3, 5, 100, 101, 120, 8_000));

      assertThat(log.image().lastOffset()).isEqualTo(before + 2);
      List<ClusterEvent> events = log.image().events();
      assertThat(events)
          .extracting(ClusterEvent::type)
          .containsExactly(
              ClusterEvent.Type.REPLICA_TRUNCATED, ClusterEvent.Type.REPLICA_TRUNCATED);
      ClusterEvent lost = events.get(0);
      assertThat(lost.topic()).isEqualTo("ledger");
      assertThat(lost.partition()).isEqualTo(2);
      assertThat(lost.brokerId()).isEqualTo(1);
      assertThat(lost.timestampMs()).isEqualTo(7_000);
      assertThat(lost.text())
          .isEqualTo("replica 1 dropped offsets 440–444 that leader 3 never had (leader epoch 5)");
      assertThat(lost.reason())
          .startsWith("above the high watermark (440)")
          .contains("no acks=all producer", "acks=1");
      assertThat(events.get(1).text()).contains("dropped offset 100 that leader 3");
      assertThat(events.get(1).reason()).isEqualTo("the replica's high watermark was 120");
    }
  }
}
