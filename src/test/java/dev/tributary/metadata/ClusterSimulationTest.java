package dev.tributary.metadata;

import static dev.tributary.metadata.ClusterHarness.SESSION_TIMEOUT_MS;
import static dev.tributary.metadata.ClusterHarness.incarnation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.errors.InvalidReplicationFactorException;
import dev.tributary.common.errors.StaleBrokerEpochException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A seeded, single-threaded simulation of a 3–5 broker cluster over simulated time: brokers
 * heartbeat, fall silent, resume, restart as new incarnations and lag in replaying metadata; topics
 * are created; the controller fences stale brokers, fails over to a new one, and (standing in for
 * the replication issue) followers join ISRs by hand; a broker's log directory goes offline
 * (docs/adr/0015) until it restarts. After every event the named invariants below are checked. A
 * failure names its seed; rerun just that one with {@code -Dtributary.seed=N}.
 */
class ClusterSimulationTest {
  private static final int SEEDS = 100;
  private static final int STEPS = 150;
  private static final int MAX_TOPICS = 8;

  @Test
  void invariantsHoldAfterEveryEventForManySeeds() {
    String fixed = System.getProperty("tributary.seed");
    if (fixed != null) {
      runSeed(Long.parseLong(fixed));
      return;
    }
    for (long seed = 0; seed < SEEDS; seed++) {
      runSeed(seed);
    }
  }

  private static void runSeed(long seed) {
    Simulation simulation = new Simulation(seed);
    try {
      simulation.run();
    } catch (Throwable e) {
      throw new AssertionError(
          "seed "
              + seed
              + " failed (rerun with -Dtributary.seed="
              + seed
              + "): "
              + e.getMessage()
              + "\nlast events:\n  "
              + String.join("\n  ", simulation.recentEvents()),
          e);
    }
  }

  /**
   * One broker process as the simulation sees it: which incarnation runs, whether it heartbeats,
   * what it replayed.
   */
  private static final class SimBroker {
    final int id;
    int generation;

    /** False while the process is paused or partitioned away: it sends no heartbeats. */
    boolean up = true;

    long epoch = -1;

    /** Its log directory went offline: every heartbeat says so until the broker restarts. */
    boolean logDirOffline;

    /** The epoch of a replaced incarnation (a zombie that may still speak), or -1. */
    long previousEpoch = -1;

    /** The metadata this broker has replayed so far: a member of the cluster with its own copy. */
    MetadataImage view = MetadataImage.EMPTY;

    SimBroker(int id) {
      this.id = id;
    }
  }

  private static final class Simulation {
    final long seed;
    final Random random;
    final ClusterHarness h;
    final List<SimBroker> brokers = new ArrayList<>();

    /**
     * When the (current) controller last heard from each broker, tracked independently of the code
     * under test.
     */
    final Map<Integer, Long> lastContactMs = new HashMap<>();

    final Map<String, Integer> leaderEpochs = new HashMap<>();
    final Map<String, Integer> partitionEpochs = new HashMap<>();
    final List<String> events = new ArrayList<>();

    /**
     * A standby controller: replays every committed record incrementally, as a quorum follower
     * would.
     */
    MetadataImage standby = MetadataImage.EMPTY;

    int topicCount;
    int checkedRecords;

    Simulation(long seed) {
      this.seed = seed;
      this.random = new Random(seed);
      this.h = new ClusterHarness(seed);
    }

    List<String> recentEvents() {
      return events.subList(Math.max(0, events.size() - 15), events.size());
    }

    void run() {
      int brokerCount = 3 + random.nextInt(3);
      for (int id = 1; id <= brokerCount; id++) {
        SimBroker broker = new SimBroker(id);
        brokers.add(broker);
        restart(broker);
        check("start b" + id);
      }
      for (int step = 0; step < STEPS; step++) {
        h.nowMs += random.nextInt(300);
        String event = step();
        check("t=" + h.nowMs + " " + event);
      }
    }

    private String step() {
      SimBroker b = brokers.get(random.nextInt(brokers.size()));
      int roll = random.nextInt(100);
      if (roll < 30) {
        return heartbeats();
      } else if (roll < 40) {
        catchUp(b);
        return "b" + b.id + " replays to " + b.view.lastOffset();
      } else if (roll < 48) {
        b.up = false;
        return "b" + b.id + " falls silent";
      } else if (roll < 56) {
        b.up = true;
        return "b" + b.id + " resumes";
      } else if (roll < 62) {
        restart(b);
        return "b" + b.id + " restarts as incarnation " + b.generation + " epoch " + b.epoch;
      } else if (roll < 72) {
        return createTopic();
      } else if (roll < 84) {
        List<MetadataRecord> records = h.fenceStaleBrokers();
        checkFencing();
        return "controller fences: " + ClusterHarness.types(records);
      } else if (roll < 90) {
        return expandIsr();
      } else if (roll < 94) {
        return lateRecordAboutOldIncarnation(b);
      } else if (roll < 96) {
        return zombieHeartbeat(b);
      } else if (roll < 97) {
        b.logDirOffline = true;
        return "b" + b.id + "'s log directory goes offline";
      } else {
        return failover();
      }
    }

    private void restart(SimBroker b) {
      b.generation++;
      b.previousEpoch = b.epoch;
      h.register(b.id, incarnation(b.id, b.generation));
      lastContactMs.put(b.id, h.nowMs);
      b.epoch = h.epoch(b.id);
      assertThat(h.state(b.id))
          .as("a new registration starts fenced")
          .isEqualTo(ClusterControl.BrokerState.FENCED);
      b.up = true;
      b.logDirOffline = false; // the restart recovered its logs
      b.view = MetadataImage.EMPTY; // a restarted broker replays the metadata log again
      catchUp(b);
    }

    /** The broker replays some (possibly all) of the committed records it has not yet. */
    private void catchUp(SimBroker b) {
      int target =
          b.view.lastOffset() < h.image.lastOffset() && random.nextBoolean()
              ? (int) b.view.lastOffset()
                  + 1
                  + random.nextInt((int) (h.image.lastOffset() - b.view.lastOffset()))
              : (int) h.image.lastOffset();
      for (int offset = (int) b.view.lastOffset() + 1; offset <= target; offset++) {
        b.view = b.view.replay(offset, h.log.get(offset));
      }
    }

    private String heartbeats() {
      StringBuilder sent = new StringBuilder("heartbeats from");
      for (SimBroker b : brokers) {
        if (!b.up || random.nextInt(10) < 3) {
          continue;
        }
        if (random.nextBoolean()) {
          catchUp(b);
        }
        boolean wasFenced = h.image.broker(b.id).orElseThrow().fenced();
        boolean fenced = h.heartbeat(b.id, b.epoch, b.view.lastOffset(), b.logDirOffline).fenced();
        lastContactMs.put(b.id, h.nowMs);
        boolean caughtUp = b.view.lastOffset() >= b.epoch;
        assertThat(fenced)
            .as("b" + b.id + " fenced after a heartbeat at offset " + b.view.lastOffset())
            .isEqualTo(b.logDirOffline || (!caughtUp && wasFenced));
        if (b.logDirOffline) {
          checkLeadsNothingAndLeftTheIsrs(b.id);
        }
        assertThat(h.state(b.id) == ClusterControl.BrokerState.FENCED).isEqualTo(fenced);
        sent.append(" b").append(b.id).append(fenced ? "(fenced)" : "");
      }
      return sent.toString();
    }

    /**
     * A broker whose log directory is offline leads nothing and is in no ISR, unless it is the last
     * member of one (the partition is then offline, waiting for it).
     */
    private void checkLeadsNothingAndLeftTheIsrs(int brokerId) {
      for (TopicImage topic : h.image.topicsByName().values()) {
        for (PartitionImage p : topic.partitions().values()) {
          String name = topic.name() + "-" + p.partition();
          assertThat(p.leader()).as("offline b%d leads %s", brokerId, name).isNotEqualTo(brokerId);
          if (p.isr().contains(brokerId)) {
            assertThat(p.isr())
                .as("offline b%d stays only as the last of %s", brokerId, name)
                .containsExactly(brokerId);
            assertThat(p.leader()).isEqualTo(-1);
          }
        }
      }
    }

    private String createTopic() {
      if (topicCount >= MAX_TOPICS) {
        return "no more topics";
      }
      String name = "t" + topicCount;
      int partitions = 1 + random.nextInt(3);
      int replicationFactor = 1 + random.nextInt(3);
      int alive = h.image.unfencedBrokerIds().size();
      if (replicationFactor > alive) {
        assertThatThrownBy(() -> h.createTopic(name, partitions, replicationFactor))
            .isInstanceOf(InvalidReplicationFactorException.class)
            .hasMessageContaining(alive + " of " + h.image.brokers().size());
        return "create " + name + " rf=" + replicationFactor + " refused with " + alive + " alive";
      }
      TopicImage topic = h.createTopic(name, partitions, replicationFactor);
      topicCount++;
      for (PartitionImage p : topic.partitions().values()) {
        assertThat(p.replicas()).allSatisfy(id -> assertThat(h.image.isUnfenced(id)).isTrue());
        assertThat(p.isr())
            .containsExactlyElementsOf(p.replicas()); // an empty log: every replica is in sync
      }
      return "create " + name + " " + partitions + "x" + replicationFactor;
    }

    /** What the replication issue will do: an unfenced follower catches up and joins the ISR. */
    private String expandIsr() {
      for (TopicImage topic : h.image.topicsByName().values()) {
        for (PartitionImage p : topic.partitions().values()) {
          if (p.leader() == -1) {
            continue;
          }
          for (int replica : p.replicas()) {
            if (!p.isr().contains(replica) && h.image.isUnfenced(replica) && random.nextBoolean()) {
              List<Integer> isr = new ArrayList<>(p.isr());
              isr.add(replica);
              h.setIsr(topic.name(), p.partition(), isr, p.leader());
              return "b"
                  + replica
                  + " joins the isr of "
                  + topic.name()
                  + "-"
                  + p.partition()
                  + ": "
                  + isr;
            }
          }
        }
      }
      return "no follower to add to an isr";
    }

    private String lateRecordAboutOldIncarnation(SimBroker b) {
      if (b.previousEpoch < 0) {
        return "b" + b.id + " has no old incarnation";
      }
      Map<Integer, BrokerImage> before = h.image.brokers();
      MetadataRecord late =
          random.nextBoolean()
              ? new MetadataRecord.BrokerFenced(b.id, b.previousEpoch)
              : new MetadataRecord.BrokerUnfenced(b.id, b.previousEpoch);
      h.commit(List.of(late));
      assertThat(h.image.brokers()).as("late " + late).isEqualTo(before);
      return "late " + late;
    }

    private String zombieHeartbeat(SimBroker b) {
      if (b.previousEpoch < 0) {
        return "b" + b.id + " has no zombie";
      }
      assertThatThrownBy(() -> h.heartbeat(b.id, b.previousEpoch, h.image.lastOffset()))
          .isInstanceOf(StaleBrokerEpochException.class);
      return "zombie b" + b.id + " epoch " + b.previousEpoch + " refused";
    }

    private String failover() {
      h.cluster = new ClusterControl(new BrokerHeartbeatManager(SESSION_TIMEOUT_MS));
      h.cluster.onBecomeActive(h.image, h.nowMs);
      h.image.brokers().keySet().forEach(id -> lastContactMs.put(id, h.nowMs));
      assertThat(h.fenceStaleBrokers()).as("a new active controller's grace period").isEmpty();
      return "controller failover";
    }

    /**
     * Right after fenceStaleBrokers: unfenced exactly the brokers heard from within the session
     * timeout.
     */
    private void checkFencing() {
      for (BrokerImage broker : h.image.brokers().values()) {
        boolean stale = h.nowMs >= lastContactMs.get(broker.brokerId()) + SESSION_TIMEOUT_MS;
        if (stale) {
          assertThat(broker.fenced())
              .as("b" + broker.brokerId() + " silent for a session")
              .isTrue();
        }
      }
    }

    private void check(String event) {
      events.add(event);
      for (; checkedRecords < h.log.size(); checkedRecords++) {
        MetadataRecord record = h.log.get(checkedRecords);
        assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(record)))
            .isEqualTo(record);
        standby = standby.replay(checkedRecords, record);
      }
      MetadataImage image = h.image;
      for (TopicImage topic : image.topicsByName().values()) {
        for (PartitionImage p : topic.partitions().values()) {
          String name = topic.name() + "-" + p.partition();
          assertThat(p.isr())
              .as("isr of %s never empty", name)
              .isNotEmpty()
              .doesNotHaveDuplicates();
          assertThat(p.replicas()).as("isr ⊆ replicas for %s", name).containsAll(p.isr());
          if (p.leader() != -1) {
            assertThat(p.isr()).as("leader ∈ isr for %s", name).contains(p.leader());
            assertThat(image.isUnfenced(p.leader()))
                .as("leader b%d of %s is unfenced", p.leader(), name)
                .isTrue();
          }
          Integer lastLeaderEpoch = leaderEpochs.put(name, p.leaderEpoch());
          Integer lastPartitionEpoch = partitionEpochs.put(name, p.partitionEpoch());
          if (lastLeaderEpoch != null) {
            assertThat(p.leaderEpoch())
                .as("leader epoch of %s never decreases", name)
                .isGreaterThanOrEqualTo(lastLeaderEpoch);
            assertThat(p.partitionEpoch())
                .as("partition epoch of %s never decreases", name)
                .isGreaterThanOrEqualTo(lastPartitionEpoch);
          }
        }
      }
      MetadataImage fresh = MetadataImage.EMPTY;
      for (int offset = 0; offset < h.log.size(); offset++) {
        fresh = fresh.replay(offset, h.log.get(offset));
      }
      assertThat(fresh).as("a fresh replay of the log").isEqualTo(image);
      assertThat(standby).as("the standby's incrementally replayed image").isEqualTo(image);
      for (SimBroker b : brokers) {
        if (b.view.lastOffset() == image.lastOffset()) {
          assertThat(b.view).as("b%d's caught-up image", b.id).isEqualTo(image);
        }
      }
      MetadataImage restored = MetadataImage.EMPTY;
      for (MetadataRecord record : image.toRecords()) {
        restored = restored.replay(restored.lastOffset() + 1, record);
      }
      assertThat(restored.withLastOffset(image.lastOffset()))
          .as("image restored from toRecords()")
          .isEqualTo(image);
    }
  }
}
