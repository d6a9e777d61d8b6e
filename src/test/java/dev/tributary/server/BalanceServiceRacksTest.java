package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.Uuid;
import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.metadata.BalancePlan;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.replication.ReplicaHarness;
import dev.tributary.replication.ReplicaHarness.Placement;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The racks {@link BalanceService} gives the planner, from the brokers' registrations: all of the
 * brokers a plan may use, or none (docs/adr/0027-racks.md). Broker 1 over a {@link LocalReplicas}
 * with brokers 1, 2 and 3, as in {@link BalanceServiceTest}.
 */
class BalanceServiceRacksTest {
  private static final RequestContext ALICE = new RequestContext("User:alice", "10.0.0.1", false);

  @TempDir Path dir;
  private LocalReplicas broker;
  private ReplicaHarness harness;
  private BalanceService balance;

  @BeforeEach
  void setUp() {
    broker = new LocalReplicas(dir);
    harness = broker.harness;
    balance = broker.balanceService(AccessControl.ALLOW_ALL);
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  /**
   * Commits (and applies here) each broker's registration again with the same epoch and state but
   * on {@code racks}' rack (none where absent), as brokers restarted with {@code broker.rack} would
   * register.
   */
  private void placeBrokersOnRacks(Map<Integer, String> racks) {
    harness.apply(withRacks(harness.controllerImage(), racks));
  }

  /** Every broker of {@code image} registered again, on {@code racks}' rack or none. */
  private static List<MetadataRecord> withRacks(MetadataImage image, Map<Integer, String> racks) {
    List<MetadataRecord> records = new ArrayList<>();
    for (BrokerImage b : image.brokers().values()) {
      records.add(
          new MetadataRecord.BrokerRegistration(
              b.brokerId(),
              b.incarnationId(),
              b.listeners(),
              b.brokerEpoch(),
              b.fenced(),
              racks.get(b.brokerId())));
    }
    return records;
  }

  private static MetadataImage replay(MetadataImage image, List<MetadataRecord> records) {
    for (MetadataRecord record : records) {
      image = image.replay(image.lastOffset() + 1, record);
    }
    return image;
  }

  @Test
  void whenEveryBrokerHasARackAPartitionOnOneRackIsSpreadAcrossTwo() {
    harness.placeTopic("t", Map.of(), Placement.replicated(0, 1, 2));
    placeBrokersOnRacks(Map.of(1, "a", 2, "a", 3, "b"));

    BalancePlan plan = balance.propose(ALICE, Set.of());

    assertThat(plan.moves())
        .extracting(
            BalancePlan.Move::partition,
            BalancePlan.Move::currentReplicas,
            BalancePlan.Move::targetReplicas)
        .containsExactly(tuple(new TopicPartition("t", 0), List.of(1, 2), List.of(1, 3)));
  }

  @Test
  void aBrokerWithoutARackLeavesThePlanRackUnaware() {
    harness.placeTopic("t", Map.of(), Placement.replicated(0, 1, 2));
    placeBrokersOnRacks(Map.of(1, "a", 2, "a"));

    BalancePlan plan = balance.propose(ALICE, Set.of());

    assertThat(plan.moves()).as("replica counts are even; racks are not considered").isEmpty();
  }

  @Test
  void theRacksFedAreThoseOfTheUnfencedBrokersNotExcluded() {
    MetadataImage image =
        replay(
            harness.controllerImage(),
            List.of(
                new MetadataRecord.RegisterBroker(
                    4, new Uuid(4, 1), List.of(AdvertisedListener.http("localhost", 9004)))));
    image = replay(image, withRacks(image, Map.of(1, "a", 2, "b")));

    assertThat(BalanceService.racks(image, Set.of(3)))
        .as("broker 3 is excluded and broker 4 fenced: neither needs a rack")
        .containsExactlyInAnyOrderEntriesOf(Map.of(1, "a", 2, "b"));
    assertThat(BalanceService.racks(image, Set.of()))
        .as("broker 3 may take replicas but has no rack")
        .isEmpty();
    assertThat(
            BalanceService.racks(
                replay(image, withRacks(image, Map.of(1, "a", 2, "b", 3, "c"))), Set.of()))
        .containsExactlyInAnyOrderEntriesOf(Map.of(1, "a", 2, "b", 3, "c"));
  }
}
