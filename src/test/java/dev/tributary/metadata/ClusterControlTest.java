package dev.tributary.metadata;

import static dev.tributary.metadata.ClusterControl.BrokerState.FENCED;
import static dev.tributary.metadata.ClusterControl.BrokerState.UNFENCED;
import static dev.tributary.metadata.ClusterControl.BrokerState.UNREGISTERED;
import static dev.tributary.metadata.ClusterHarness.SESSION_TIMEOUT_MS;
import static dev.tributary.metadata.ClusterHarness.incarnation;
import static dev.tributary.metadata.ClusterHarness.types;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.errors.BrokerNotRegisteredException;
import dev.tributary.common.errors.InvalidReplicationFactorException;
import dev.tributary.common.errors.StaleBrokerEpochException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClusterControlTest {
  private final ClusterHarness h = new ClusterHarness(17);

  /**
   * The transition table of ClusterControl's class doc, row by row: broker 1 starts in {@code from}
   * (brokers 2 and 3 are up and heartbeating throughout), then {@code event} happens; broker 1 ends
   * in {@code to} and the controller committed exactly {@code records} (or refused with {@code
   * error}).
   */
  @ParameterizedTest(name = "{0} + {1} -> {2} {3}")
  @CsvSource(
      delimiter = '|',
      nullValues = "-",
      textBlock =
          """
          # from                   | event                  | to           | records or error
          unregistered             | register               | FENCED       | RegisterBroker
          unregistered             | heartbeat caught up    | UNREGISTERED | BrokerNotRegisteredException
          fenced (new)             | heartbeat behind       | FENCED       | -
          fenced (new)             | heartbeat caught up    | UNFENCED     | BrokerUnfenced
          fenced (new)             | heartbeat other epoch  | FENCED       | StaleBrokerEpochException
          fenced (new)             | register               | FENCED       | -
          fenced (new)             | register new process   | FENCED       | RegisterBroker
          fenced (new)             | session expires        | FENCED       | -
          unfenced                 | heartbeat caught up    | UNFENCED     | -
          unfenced                 | heartbeat behind       | UNFENCED     | -
          unfenced                 | heartbeat other epoch  | UNFENCED     | StaleBrokerEpochException
          unfenced                 | register               | UNFENCED     | -
          unfenced                 | register new process   | FENCED       | RegisterBroker
          unfenced                 | session expires        | FENCED       | BrokerFenced
          fenced (missed session)  | heartbeat behind       | FENCED       | -
          fenced (missed session)  | heartbeat caught up    | UNFENCED     | BrokerUnfenced
          fenced (missed session)  | register new process   | FENCED       | RegisterBroker
          """)
  void registrationStateTransitions(String from, String event, String to, String expected) {
    h.startBrokers(2, 3);
    switch (from) {
      case "unregistered" -> {}
      case "fenced (new)" -> h.register(1, incarnation(1, 1));
      case "unfenced" -> h.startBrokers(1);
      case "fenced (missed session)" -> {
        h.startBrokers(1);
        expireSessionOf(1);
      }
      default -> throw new IllegalArgumentException(from);
    }
    long epochBefore = h.image.broker(1).map(BrokerImage::brokerEpoch).orElse(-1L);
    List<MetadataRecord> records;
    try {
      records =
          switch (event) {
            case "register" -> h.register(1, incarnation(1, 1));
            case "register new process" -> h.register(1, incarnation(1, 2));
            case "heartbeat caught up" ->
                h.heartbeat(1, epochBefore, h.image.lastOffset()).records();
            case "heartbeat behind" -> h.heartbeat(1, epochBefore, epochBefore - 1).records();
            case "heartbeat other epoch" ->
                h.heartbeat(1, epochBefore - 1, h.image.lastOffset()).records();
            case "session expires" -> expireSessionOf(1);
            default -> throw new IllegalArgumentException(event);
          };
    } catch (RuntimeException e) {
      assertThat(e.getClass().getSimpleName()).isEqualTo(expected);
      assertThat(h.state(1)).hasToString(to);
      return;
    }
    assertThat(h.state(1)).hasToString(to);
    assertThat(types(records))
        .isEqualTo(expected == null ? List.of() : Arrays.asList(expected.split(" ")));
    if (records.stream().anyMatch(r -> r instanceof MetadataRecord.RegisterBroker)) {
      assertThat(h.epoch(1)).isEqualTo(h.image.lastOffset()).isGreaterThan(epochBefore);
    }
  }

  /**
   * Brokers 2 and 3 heartbeat while broker {@code silent} does not, for one session; then the
   * controller fences.
   */
  private List<MetadataRecord> expireSessionOf(int silent) {
    h.nowMs += SESSION_TIMEOUT_MS;
    for (int id : h.image.unfencedBrokerIds()) {
      if (id != silent) {
        h.heartbeat(id);
      }
    }
    return h.fenceStaleBrokers();
  }

  @Test
  void aBrokerIsFencedExactlyWhenItsSessionTimeoutHasPassedSinceItsLastHeartbeat() {
    h.startBrokers(1);
    long lastHeartbeatMs = h.nowMs;
    h.nowMs = lastHeartbeatMs + SESSION_TIMEOUT_MS - 1;
    assertThat(h.fenceStaleBrokers()).isEmpty();
    assertThat(h.state(1)).isEqualTo(UNFENCED);
    h.nowMs = lastHeartbeatMs + SESSION_TIMEOUT_MS;
    assertThat(types(h.fenceStaleBrokers())).containsExactly("BrokerFenced");
    assertThat(h.state(1)).isEqualTo(FENCED);
  }

  @Test
  void aHeartbeatStartsANewSession() {
    h.startBrokers(1);
    h.nowMs += SESSION_TIMEOUT_MS - 1;
    h.heartbeat(1);
    h.nowMs += SESSION_TIMEOUT_MS - 1;
    assertThat(h.fenceStaleBrokers()).isEmpty();
    assertThat(h.cluster.nextDeadlineMs(h.image)).isEqualTo(h.nowMs + 1);
  }

  @Test
  void registrationStartsFencedWithTheRecordsOffsetAsEpochAndARetryChangesNothing() {
    h.startBrokers(2);
    List<MetadataRecord> first = h.register(1, incarnation(1, 1));
    assertThat(first).hasSize(1);
    long epoch = h.epoch(1);
    assertThat(epoch).isEqualTo(h.image.lastOffset());
    assertThat(h.state(1)).isEqualTo(FENCED);
    assertThat(h.register(1, incarnation(1, 1))).isEmpty();
    assertThat(h.epoch(1)).isEqualTo(epoch);
  }

  @Test
  void aLeadersFencingMovesLeadershipToTheFirstUnfencedIsrMemberInReplicaOrder() {
    h.startBrokers(1, 2, 3);
    h.commit(h.topics.createTopic(h.image, "t", 1, 3, Map.of(), List.of(1, 2, 3)));
    PartitionImage before = h.partition("t", 0);
    int leader = before.leader();
    h.setIsr(
        "t",
        0,
        before.replicas(),
        leader); // followers caught up (the replication issue's ISR expansion)
    before = h.partition("t", 0);
    List<Integer> others = before.replicas().stream().filter(id -> id != leader).toList();
    expireSessionOf(leader);
    PartitionImage after = h.partition("t", 0);
    assertThat(after.leader()).isEqualTo(others.get(0));
    assertThat(after.isr()).containsExactlyElementsOf(others);
    assertThat(after.leaderEpoch()).isEqualTo(before.leaderEpoch() + 1);
    assertThat(after.partitionEpoch()).isEqualTo(before.partitionEpoch() + 1);
  }

  @Test
  void aFencedFollowerLeavesTheIsrWithoutALeaderChange() {
    h.startBrokers(1, 2, 3);
    h.commit(h.topics.createTopic(h.image, "t", 1, 3, Map.of(), List.of(1, 2, 3)));
    PartitionImage p = h.partition("t", 0);
    h.setIsr("t", 0, p.replicas(), p.leader());
    int follower = p.replicas().get(1);
    PartitionImage before = h.partition("t", 0);
    expireSessionOf(follower);
    PartitionImage after = h.partition("t", 0);
    assertThat(after.leader()).isEqualTo(before.leader());
    assertThat(after.isr()).doesNotContain(follower).hasSize(2);
    assertThat(after.leaderEpoch()).isEqualTo(before.leaderEpoch());
    assertThat(after.partitionEpoch()).isEqualTo(before.partitionEpoch() + 1);
  }

  @Test
  void withTheLeaderAloneInSyncItsFencingTakesThePartitionOfflineAndItsReturnBringsItBack() {
    h.startBrokers(1, 2, 3);
    h.createTopic("t", 1, 3);
    int leader = h.partition("t", 0).leader();
    h.setIsr("t", 0, List.of(leader), leader); // both followers fell behind and left the ISR
    PartitionImage created = h.partition("t", 0);
    assertThat(created.replicas()).hasSize(3);

    List<MetadataRecord> fencing = expireSessionOf(leader);
    assertThat(types(fencing)).containsExactly("PartitionChange", "BrokerFenced");
    PartitionImage offline = h.partition("t", 0);
    assertThat(offline.leader()).isEqualTo(-1);
    assertThat(offline.isr()).containsExactly(leader);
    assertThat(offline.leaderEpoch()).isEqualTo(1);

    h.nowMs += 10;
    assertThat(types(h.heartbeat(leader).records()))
        .containsExactly("BrokerUnfenced", "PartitionChange");
    PartitionImage back = h.partition("t", 0);
    assertThat(back.leader()).isEqualTo(leader);
    assertThat(back.isr()).containsExactly(leader);
    assertThat(back.leaderEpoch()).isEqualTo(2);
    assertThat(back.partitionEpoch()).isEqualTo(3);
  }

  @Test
  void aBrokerReportingItsLogDirectoryOfflineHandsOverItsLeadershipsLeavesTheIsrsAndStaysFenced() {
    h.startBrokers(1, 2, 3);
    h.createTopic("t", 3, 3); // every broker leads one partition and follows the others
    h.createTopic("solo", 1, 1);
    int soloLeader = h.partition("solo", 0).leader();
    long epoch = h.epoch(soloLeader);

    h.nowMs += 10;
    ClusterControl.HeartbeatResult result =
        h.heartbeat(soloLeader, epoch, h.image.lastOffset(), true);

    assertThat(result.fenced()).isTrue();
    assertThat(types(result.records()))
        .containsExactly(
            "PartitionChange",
            "PartitionChange",
            "PartitionChange",
            "PartitionChange",
            "BrokerFenced");
    for (int p = 0; p < 3; p++) {
      PartitionImage moved = h.partition("t", p);
      assertThat(moved.leader()).isNotEqualTo(soloLeader).isNotEqualTo(-1);
      assertThat(moved.isr()).hasSize(2).doesNotContain(soloLeader);
      assertThat(moved.replicas())
          .contains(soloLeader); // still assigned: it comes back after a restart
    }
    PartitionImage solo = h.partition("solo", 0);
    assertThat(solo.leader()).as("nobody else holds its records").isEqualTo(-1);
    assertThat(solo.isr()).containsExactly(soloLeader);
    assertThat(h.state(soloLeader)).isEqualTo(ClusterControl.BrokerState.FENCED);

    h.nowMs += 10;
    ClusterControl.HeartbeatResult again =
        h.heartbeat(soloLeader, epoch, h.image.lastOffset(), true);
    assertThat(again.fenced()).as("never unfenced while its directory is offline").isTrue();
    assertThat(again.records()).isEmpty();
    // Restarted with the disk fixed: a new incarnation, unfenced once caught up, leads again.
    h.register(soloLeader, incarnation(soloLeader, 2));
    assertThat(h.heartbeat(soloLeader).fenced()).isFalse();
    assertThat(h.partition("solo", 0).leader()).isEqualTo(soloLeader);
  }

  @Test
  void aNewIncarnationGivesUpWhatTheOldProcessLedUntilItIsUnfenced() {
    h.startBrokers(1);
    h.createTopic("t", 2, 1);
    List<MetadataRecord> records = h.register(1, incarnation(1, 2));
    assertThat(types(records))
        .containsExactly("PartitionChange", "PartitionChange", "RegisterBroker");
    assertThat(h.image.topic("t").orElseThrow().partitions().values())
        .allSatisfy(p -> assertThat(p.leader()).isEqualTo(-1));
    assertThatThrownBy(() -> h.heartbeat(1, h.epoch(1) - 1, h.image.lastOffset()))
        .isInstanceOf(StaleBrokerEpochException.class);
    h.heartbeat(1);
    assertThat(h.image.topic("t").orElseThrow().partitions().values())
        .allSatisfy(
            p -> {
              assertThat(p.leader()).isEqualTo(1);
              assertThat(p.leaderEpoch()).isEqualTo(2);
            });
  }

  @Test
  void aHeartbeatUnfencesOnlyOnceTheBrokerHasReplayedItsOwnRegistration() {
    h.register(1, incarnation(1, 1));
    long epoch = h.epoch(1);
    assertThat(h.heartbeat(1, epoch, epoch - 1).fenced()).isTrue();
    assertThat(h.state(1)).isEqualTo(FENCED);
    assertThat(h.heartbeat(1, epoch, epoch).fenced()).isFalse();
    assertThat(h.state(1)).isEqualTo(UNFENCED);
  }

  @Test
  void anUnknownBrokersHeartbeatIsRefused() {
    assertThatThrownBy(() -> h.heartbeat(7, 0, 0))
        .isInstanceOf(BrokerNotRegisteredException.class)
        .hasMessageContaining("Broker 7");
    assertThat(h.state(7)).isEqualTo(UNREGISTERED);
  }

  @Test
  void aLateFenceOrUnfenceAboutAnOldIncarnationIsANoOp() {
    h.startBrokers(1);
    long oldEpoch = h.epoch(1);
    h.register(1, incarnation(1, 2));
    h.heartbeat(1);
    MetadataImage unfenced = h.image;
    h.commit(List.of(new MetadataRecord.BrokerFenced(1, oldEpoch)));
    assertThat(h.image.brokers()).isEqualTo(unfenced.brokers());
    assertThat(h.state(1)).isEqualTo(UNFENCED);

    h.nowMs += SESSION_TIMEOUT_MS;
    h.fenceStaleBrokers();
    MetadataImage fenced = h.image;
    h.commit(List.of(new MetadataRecord.BrokerUnfenced(1, oldEpoch)));
    assertThat(h.image.brokers()).isEqualTo(fenced.brokers());
    assertThat(h.state(1)).isEqualTo(FENCED);
  }

  @Test
  void placementSkipsFencedBrokersAndRefusesMoreReplicasThanAliveBrokers() {
    h.startBrokers(1, 2, 3);
    expireSessionOf(2);
    TopicImage topic = h.createTopic("t", 12, 2);
    assertThat(topic.partitions().values())
        .allSatisfy(p -> assertThat(p.replicas()).doesNotContain(2));
    assertThatThrownBy(() -> h.createTopic("u", 1, 3))
        .isInstanceOf(InvalidReplicationFactorException.class)
        .hasMessageContaining("Replication factor 3")
        .hasMessageContaining("2 of 3 registered broker(s) are alive");
    h.commit(h.topics.createPartitions(h.image, "t", 13));
    assertThat(h.partition("t", 12).replicas()).doesNotContain(2);
    expireSessionOf(3);
    assertThatThrownBy(() -> h.commit(h.topics.createPartitions(h.image, "t", 14)))
        .isInstanceOf(InvalidReplicationFactorException.class)
        .hasMessageContaining("1 of 3");
  }

  @Test
  void aNewActiveControllerGrantsEveryBrokerAFullSession() {
    h.startBrokers(1, 2);
    h.nowMs += SESSION_TIMEOUT_MS * 5; // the old controller died long ago and nobody fenced anyone
    h.cluster = new ClusterControl(new BrokerHeartbeatManager(SESSION_TIMEOUT_MS));
    h.cluster.onBecomeActive(h.image, h.nowMs);
    assertThat(h.fenceStaleBrokers()).isEmpty();
    h.nowMs += SESSION_TIMEOUT_MS - 1;
    h.heartbeat(2);
    assertThat(h.fenceStaleBrokers()).isEmpty();
    h.nowMs += 1;
    assertThat(types(h.fenceStaleBrokers())).containsExactly("BrokerFenced");
    assertThat(h.image.unfencedBrokerIds()).containsExactly(2);
  }

  @Test
  void fencingSeveralBrokersAtOnceKeepsTheIsrNonEmpty() {
    h.startBrokers(1, 2, 3);
    h.commit(h.topics.createTopic(h.image, "t", 1, 3, Map.of(), List.of(1, 2, 3)));
    PartitionImage p = h.partition("t", 0);
    h.setIsr("t", 0, p.replicas(), p.leader());
    h.nowMs += SESSION_TIMEOUT_MS;
    List<MetadataRecord> records = h.fenceStaleBrokers();
    assertThat(types(records))
        .containsExactly("PartitionChange", "BrokerFenced", "BrokerFenced", "BrokerFenced");
    PartitionImage after = h.partition("t", 0);
    assertThat(after.leader()).isEqualTo(-1);
    assertThat(after.isr()).containsExactly(p.leader());
  }
}
