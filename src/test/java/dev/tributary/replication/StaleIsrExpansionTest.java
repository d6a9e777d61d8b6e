package dev.tributary.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.metadata.PartitionImage;
import dev.tributary.replication.ReplicationSim.Sim;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-903's scenario, step by step in the replication simulation: a follower catches up, its leader
 * asks the controller to add it to the ISR, and that request is held back (a cut link, TCP
 * retransmitting it) while the follower's broker loses its disk and comes back empty under a new
 * broker epoch. Delivered late, the expansion names the old broker epoch and is refused: the empty
 * replica never joins the ISR, and when the leader dies, a replica with the data takes over. The
 * negative control delivers the same request without the broker epochs (what a controller without
 * KIP-903's check would act on): the empty replica joins the ISR, leads once the others are gone,
 * and the checker reports the acknowledged records lost.
 */
class StaleIsrExpansionTest {
  @TempDir Path root;

  @Test
  void aStaleExpansionDeliveredAfterTheReplicaWasWipedIsRefusedAndNothingIsLost() {
    Scenario s = new Scenario(root.resolve("refused"));
    AlterPartitionRequest held = s.expansionHeldWhileTheFollowerIsWiped();

    String outcome = s.deliver(held);

    assertThat(outcome).as("the late expansion").contains("controller refuses");
    assertThat(s.sim.partition().isr()).doesNotContain(s.follower);
    s.leaderDies();
    assertThat(s.sim.partition().leader()).as("the new leader").isEqualTo(s.bystander);
    s.sim.checkInvariants(); // every acknowledged record on the new leader
    s.sim.heal(); // restarts the old leader; every replica converges and holds them all
  }

  @Test
  void withoutTheBrokerEpochsTheEmptyReplicaJoinsAndAcknowledgedRecordsAreLost() {
    Scenario s = new Scenario(root.resolve("control"));
    AlterPartitionRequest held = s.expansionHeldWhileTheFollowerIsWiped();
    AlterPartitionRequest withoutEpochs =
        new AlterPartitionRequest(
            held.topicId(),
            held.topicPartition(),
            held.leaderId(),
            held.leaderEpoch(),
            held.partitionEpoch(),
            held.newIsr(),
            Map.of(),
            held.reason());

    String outcome = s.deliver(withoutEpochs);

    assertThat(outcome).as("the late expansion, its epochs stripped").contains("commits ISR");
    assertThat(s.sim.partition().isr()).contains(s.follower);
    s.sim.brokers.get(s.bystander).crash();
    s.leaderDies();
    assertThat(s.sim.partition().leader()).as("the only live ISR member").isEqualTo(s.follower);
    assertThatThrownBy(s.sim::checkInvariants)
        .as("the checker on the empty replica that leads")
        .hasMessageContaining("acknowledged");
  }

  /** One partition, rf 3, min ISR 2, on four simulated brokers; its roles picked from the start. */
  private static final class Scenario {
    final Sim sim;
    final int leader;
    final int follower;
    final int bystander;

    Scenario(Path dir) {
      sim = new Sim(7, dir);
      sim.setUp();
      PartitionImage p = sim.partition();
      leader = p.leader();
      List<Integer> followers = p.replicas().stream().filter(id -> id != leader).toList();
      follower = followers.get(0);
      bystander = followers.get(1);
    }

    /**
     * Records acknowledged by all three replicas; the follower crashes and leaves the ISR; it
     * restarts, catches up, and its leader's expansion request is taken off the wire; the follower
     * crashes again and comes back with an empty disk. Returns the held request.
     */
    AlterPartitionRequest expansionHeldWhileTheFollowerIsWiped() {
      produceAcknowledged(5);
      sim.brokers.get(follower).crash();
      produceAcknowledged(5); // the ISR shrinks to leader and bystander on the way
      assertThat(sim.partition().isr()).containsExactlyInAnyOrder(leader, bystander);

      sim.start(follower);
      sim.deliverAll();
      for (int round = 0; round < 20 && sim.alters.isEmpty(); round++) {
        fetchRound();
      }
      assertThat(sim.alters).as("the leader's request to add b%d back", follower).hasSize(1);
      AlterPartitionRequest held = sim.alters.peek().request();
      assertThat(held.newIsr()).contains(follower);
      assertThat(held.brokerEpochs()).containsKey(follower);

      sim.brokers.get(follower).crash();
      sim.wipe(follower);
      sim.start(follower);
      assertThat(sim.brokers.get(follower).brokerEpoch)
          .as("the wiped broker's new registration")
          .isNotEqualTo(held.brokerEpochs().get(follower));
      return held;
    }

    /** Delivers {@code request} in place of the held one; returns what the controller did. */
    String deliver(AlterPartitionRequest request) {
      Sim.PendingAlter held = sim.alters.poll();
      sim.alters.addFirst(new Sim.PendingAlter(request, held.future()));
      String outcome = sim.processAlter();
      sim.deliverAll();
      return outcome;
    }

    /** The leader crashes and is fenced once its session ends; the controller elects another. */
    void leaderDies() {
      sim.brokers.get(leader).crash();
      for (int i = 0; i < 6; i++) {
        sim.clock.advance(500);
        sim.heartbeats();
      }
      sim.deliverAll();
    }

    private void produceAcknowledged(int count) {
      for (int i = 0; i < count; i++) {
        String value = "v" + sim.nextValue++;
        sim.inFlight.add(
            new Sim.InFlight(
                value,
                ReplicaManagerCalls.append(
                    sim.brokers.get(leader).replicas,
                    sim.tp,
                    TestBatches.batch(value),
                    Acks.ALL,
                    3_000)));
      }
      for (int round = 0; round < 40 && !sim.inFlight.isEmpty(); round++) {
        fetchRound();
        sim.clock.advance(100);
        while (sim.processAlterQuietly()) {
          sim.deliverAll();
        }
        sim.heartbeats();
        sim.checkInvariants();
      }
      assertThat(sim.inFlight).as("produces still waiting for acknowledgement").isEmpty();
    }

    private void fetchRound() {
      for (Sim.SimBroker broker : sim.brokers.values()) {
        if (broker.alive) {
          for (int leaderId : broker.fetchers.leaders()) {
            broker.fetchers.fetcher(leaderId).ifPresent(ReplicaFetcher::doWork);
          }
        }
      }
    }
  }
}
