package dev.tributary.metadata.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.metadata.MetadataImage;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RatisSnapshotTest {
  private static final RatisQuorumOptions FREQUENT_SNAPSHOTS =
      RatisQuorumOptions.DEFAULTS.withSnapshotThresholdEntries(10).withLogSegmentSizeMaxBytes(1024);

  @TempDir Path dir;
  private QuorumFixture quorum;

  @AfterEach
  void closeQuorum() {
    if (quorum != null) {
      quorum.close();
    }
  }

  @Test
  void snapshotsPurgeTheLogAndRestartedMembersRecoverFromThemOrHaveThemInstalled()
      throws Exception {
    quorum = QuorumFixture.create(dir, 3, 0, FREQUENT_SNAPSHOTS).startAll();
    RatisMetadataQuorum leader = quorum.awaitLeader();
    quorum.appendTopic(leader, "t0");
    RatisMetadataQuorum lagging = quorum.follower(leader);
    int laggingId = lagging.localBrokerId();
    quorum.awaitImages(leader.image());
    long laggingIndex = lagging.division().getInfo().getLastAppliedIndex();
    quorum.stop(laggingId);

    for (int i = 1; i <= 60; i++) {
      quorum.appendTopic(leader, "t" + i);
    }
    MetadataImage expected = leader.image();
    assertThat(expected.lastOffset()).isEqualTo(121);
    await("the leader purges its log past the stopped follower")
        .atMost(QuorumFixture.WAIT)
        .until(() -> leader.division().getRaftLog().getStartIndex() > laggingIndex + 1);
    await("old snapshots are deleted")
        .atMost(QuorumFixture.WAIT)
        .until(() -> quorum.snapshotFiles(leader.localBrokerId()) == 2);

    quorum.start(
        laggingId); // its next entry is gone from the leader's log: it must install a snapshot
    quorum.awaitImages(expected);
    assertThat(quorum.snapshotFiles(laggingId)).isPositive();

    RatisMetadataQuorum other =
        quorum.members().stream()
            .filter(q -> q != leader && q.localBrokerId() != laggingId)
            .findFirst()
            .orElseThrow();
    assertThat(quorum.snapshotFiles(other.localBrokerId())).isPositive();
    quorum.stop(other.localBrokerId());
    RatisMetadataQuorum restarted =
        quorum.start(other.localBrokerId()); // from its own snapshot plus log
    assertThat(restarted.image().lastOffset())
        .as("recovered at least up to its snapshot")
        .isPositive();
    quorum.awaitImages(expected);

    MetadataImage after = quorum.appendTopic(quorum.awaitLeader(), "after");
    quorum.awaitImages(after);
  }
}
