package dev.tributary.metadata.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tributary.common.Uuid;
import dev.tributary.common.errors.NotControllerException;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.metadata.StaleMetadataException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RatisMetadataQuorumTest {
  @TempDir Path dir;
  private QuorumFixture quorum;

  @AfterEach
  void closeQuorum() {
    if (quorum != null) {
      quorum.close();
    }
  }

  @Test
  void leaderCommitsBatchesThatEveryMemberAndListenerReplaysInOrder() {
    quorum = QuorumFixture.create(dir, 3, 1, RatisQuorumOptions.DEFAULTS).startAll();
    Map<Integer, List<Long>> seenOffsets = new ConcurrentHashMap<>();
    for (RatisMetadataQuorum member : quorum.members()) {
      List<Long> seen = new CopyOnWriteArrayList<>();
      seenOffsets.put(member.localBrokerId(), seen);
      member.subscribe(image -> seen.add(image.lastOffset()));
    }
    RatisMetadataQuorum leader = quorum.awaitLeader();

    for (String topic : List.of("a", "b", "c")) {
      MetadataImage returned = quorum.appendTopic(leader, topic);
      assertThat(returned.topic(topic)).isPresent();
      assertThat(leader.image().topic(topic))
          .as("the leader's image includes the batch on return")
          .isPresent();
    }
    assertThat(leader.image().lastOffset()).isEqualTo(5);
    quorum.awaitImages(leader.image());

    RatisMetadataQuorum follower = quorum.follower(leader);
    assertThatThrownBy(() -> quorum.appendTopic(follower, "x"))
        .isInstanceOf(NotControllerException.class)
        .hasMessageContaining("broker " + leader.localBrokerId());
    RatisMetadataQuorum listener = quorum.member(4);
    assertThatThrownBy(() -> quorum.appendTopic(listener, "x"))
        .isInstanceOf(NotControllerException.class);
    assertThat(listener.isActiveController()).isFalse();
    assertThat(listener.activeControllerId()).hasValue(leader.localBrokerId());

    assertThatThrownBy(() -> leader.append(3, quorum.topicRecords("stale")))
        .isInstanceOf(StaleMetadataException.class);
    assertThat(leader.image().lastOffset()).isEqualTo(5);
    quorum.appendTopic(
        leader, "d"); // committed after the stale batch: once it is everywhere, so is the verdict
    quorum.awaitImages(leader.image());
    for (RatisMetadataQuorum member : quorum.members()) {
      assertThat(member.image().topic("stale")).isEmpty();
      assertThat(member.controllerEpoch()).isEqualTo(leader.controllerEpoch()).isPositive();
      assertThat(seenOffsets.get(member.localBrokerId()))
          .as("images seen by b" + member.localBrokerId())
          .containsExactly(-1L, 1L, 3L, 5L, 7L);
    }
  }

  @Test
  void aListenerAddedToARunningQuorumCatchesUpFromASnapshotAndStaysAMemberAcrossRestarts() {
    // A snapshot every 4 entries and purged logs: the new listener cannot get the first entries
    // from the log and must be sent a snapshot.
    quorum =
        QuorumFixture.create(dir, 3, 0, RatisQuorumOptions.DEFAULTS.withSnapshotThresholdEntries(4))
            .startAll();
    RatisMetadataQuorum leader = quorum.awaitLeader();
    for (String topic : List.of("a", "b", "c", "d", "e", "f")) {
      quorum.appendTopic(leader, topic);
    }

    int added = quorum.addListener();
    RatisMetadataQuorum listener = quorum.start(added, Map.of(added, quorum.listeners.get(added)));
    quorum.awaitImages(leader.image());
    quorum.appendTopic(leader, "after-join");
    quorum.awaitImages(leader.image());
    assertThat(listener.image().topic("a")).isPresent();
    assertThat(listener.activeControllerId()).hasValue(leader.localBrokerId());
    assertThat(listener.isActiveController()).isFalse();

    // Every member restarts; the voters with their original static configuration, which does not
    // name the listener: the configuration in the log does, so it keeps receiving the log.
    quorum.stopAll();
    for (int voter : quorum.voters.keySet()) {
      quorum.start(voter, Map.of());
    }
    quorum.start(added, Map.of(added, quorum.listeners.get(added)));
    RatisMetadataQuorum newLeader = quorum.awaitLeader();
    quorum.appendTopic(newLeader, "after-restart");
    quorum.awaitImages(newLeader.image());
    assertThat(quorum.member(added).image().topic("after-restart")).isPresent();
  }

  @Test
  void closingTheLeaderElectsANewOneThatKeepsEverythingAndTheOldOneCatchesUp() {
    quorum = QuorumFixture.create(dir, 3, 0, RatisQuorumOptions.DEFAULTS).startAll();
    Map<Integer, List<Boolean>> activeSeen = new ConcurrentHashMap<>();
    for (RatisMetadataQuorum member : quorum.members()) {
      List<Boolean> seen = new CopyOnWriteArrayList<>();
      activeSeen.put(member.localBrokerId(), seen);
      member.addLeadershipListener(() -> seen.add(member.isActiveController()));
    }
    RatisMetadataQuorum oldLeader = quorum.awaitLeader();
    long oldEpoch = oldLeader.controllerEpoch();
    quorum.appendTopic(oldLeader, "a");
    MetadataImage committed = quorum.appendTopic(oldLeader, "b");

    int oldId = oldLeader.localBrokerId();
    long closingAtNanos = System.nanoTime();
    quorum.stop(oldId);
    long closedAtNanos = System.nanoTime();
    RatisMetadataQuorum newLeader = quorum.awaitLeader();
    long electionMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closingAtNanos);
    System.out.println(
        "new active controller b"
            + newLeader.localBrokerId()
            + " ready "
            + electionMs
            + " ms after closing b"
            + oldId
            + " began (close took "
            + TimeUnit.NANOSECONDS.toMillis(closedAtNanos - closingAtNanos)
            + " ms)");

    assertThat(electionMs).isLessThan(5_000);
    assertThat(newLeader.controllerEpoch()).isGreaterThan(oldEpoch);
    assertThat(newLeader.image()).isEqualTo(committed);
    await()
        .atMost(QuorumFixture.WAIT)
        .until(() -> activeSeen.get(newLeader.localBrokerId()).contains(true));

    MetadataImage next = quorum.appendTopic(newLeader, "c");
    assertThat(next.lastOffset()).isEqualTo(committed.lastOffset() + 2);

    RatisMetadataQuorum restarted = quorum.start(oldId);
    quorum.awaitImages(newLeader.image());
    assertThat(restarted.isActiveController()).isFalse();
    assertThat(restarted.activeControllerId()).hasValue(newLeader.localBrokerId());
  }

  @Test
  void aFullRestartKeepsTheImageAndItsLastOffset() {
    quorum = QuorumFixture.create(dir, 3, 0, RatisQuorumOptions.DEFAULTS).startAll();
    RatisMetadataQuorum leader = quorum.awaitLeader();
    quorum.appendTopic(leader, "a");
    quorum.appendTopic(leader, "b");
    leader.append(
        leader.image().lastOffset(),
        List.of(
            new MetadataRecord.TopicDeleted(leader.image().topic("a").orElseThrow().topicId())));
    MetadataImage before = leader.image();
    assertThat(before.lastOffset()).isEqualTo(4);
    quorum.awaitImages(before);

    quorum.stopAll();
    quorum.startAll();

    RatisMetadataQuorum newLeader = quorum.awaitLeader();
    quorum.awaitImages(before);
    assertThat(quorum.appendTopic(newLeader, "c").lastOffset()).isEqualTo(6);
    quorum.awaitImages(newLeader.image());
  }

  @Test
  void aBatchWhoseRecordFailsToReplayIsRejectedEverywhereWithoutWedgingAnyMember() {
    quorum = QuorumFixture.create(dir, 3, 0, RatisQuorumOptions.DEFAULTS).startAll();
    RatisMetadataQuorum leader = quorum.awaitLeader();
    quorum.appendTopic(leader, "a");
    MetadataImage before = leader.image();

    List<MetadataRecord> bad = new ArrayList<>(quorum.topicRecords("half"));
    bad.add(new MetadataRecord.TopicDeleted(new Uuid(7, 7)));
    assertThatThrownBy(() -> leader.append(before.lastOffset(), bad))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("unknown topic id");
    assertThat(leader.image()).isEqualTo(before);

    MetadataImage after = quorum.appendTopic(leader, "b");
    assertThat(after.lastOffset()).isEqualTo(before.lastOffset() + 2);
    quorum.awaitImages(after);
    for (RatisMetadataQuorum member : quorum.members()) {
      assertThat(member.image().topic("half")).isEmpty();
    }
  }

  @Test
  void aBrokerThatIsNeitherVoterNorListenerIsRefused() {
    quorum = QuorumFixture.create(dir, 3, 0, RatisQuorumOptions.DEFAULTS);
    assertThatThrownBy(() -> RatisMetadataQuorum.start(9, quorum.voters, dir.resolve("b9")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("broker 9 is not a voter or listener");
  }
}
