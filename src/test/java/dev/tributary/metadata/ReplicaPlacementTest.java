package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.errors.InvalidReplicationFactorException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ReplicaPlacementTest {
  private static final List<Integer> BROKERS = List.of(1, 2, 3, 4, 5);

  @Test
  void everyPartitionGetsDistinctReplicasWithTheFirstAsLeader() {
    List<List<Integer>> assignment = ReplicaPlacement.assign(BROKERS, 0, 20, 3, new Random(7));
    assertThat(assignment).hasSize(20);
    for (List<Integer> replicas : assignment) {
      assertThat(replicas).hasSize(3).doesNotHaveDuplicates();
      assertThat(BROKERS).containsAll(replicas);
    }
  }

  @Test
  void leadersAndReplicasAreSpreadEvenly() {
    List<List<Integer>> assignment = ReplicaPlacement.assign(BROKERS, 0, 50, 3, new Random(42));
    Map<Integer, Integer> leaders = new HashMap<>();
    Map<Integer, Integer> replicas = new HashMap<>();
    for (List<Integer> r : assignment) {
      leaders.merge(r.get(0), 1, Integer::sum);
      r.forEach(b -> replicas.merge(b, 1, Integer::sum));
    }
    assertThat(leaders.values()).allMatch(n -> n == 10);
    assertThat(replicas.values()).allMatch(n -> n == 30);
  }

  @Test
  void matchesKafkasAlgorithmForAFixedStart() {
    // start index and shift both drawn as 0 from this seed's first two nextInt(5) calls? Compute
    // them instead.
    Random probe = new Random(3);
    int start = probe.nextInt(5);
    int shift = probe.nextInt(5);
    List<List<Integer>> assignment = ReplicaPlacement.assign(BROKERS, 0, 6, 2, new Random(3));
    for (int p = 0; p < 6; p++) {
      int s = shift + (p >= 5 ? 1 : 0);
      int first = (p + start) % 5;
      int second = (first + 1 + s % 4) % 5;
      assertThat(assignment.get(p)).containsExactly(BROKERS.get(first), BROKERS.get(second));
    }
  }

  @Test
  void differentStartsSpreadSingleReplicaTopics() {
    Random random = new Random(1);
    HashSet<Integer> leaders = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      leaders.add(ReplicaPlacement.assign(BROKERS, 0, 1, 1, random).get(0).get(0));
    }
    assertThat(leaders).containsExactlyInAnyOrderElementsOf(BROKERS);
  }

  @Test
  void replicationFactorAboveBrokerCountIsRefused() {
    assertThatThrownBy(() -> ReplicaPlacement.assign(List.of(1), 0, 1, 2, new Random()))
        .isInstanceOf(InvalidReplicationFactorException.class)
        .hasMessageContaining("larger than the 1 available broker");
    assertThatThrownBy(() -> ReplicaPlacement.assign(BROKERS, 0, 1, 0, new Random()))
        .isInstanceOf(InvalidReplicationFactorException.class);
  }

  // ---- racks (KIP-36; docs/adr/0027-racks.md)

  /** Six brokers, two per rack: 1, 2 on a; 3, 4 on b; 5, 6 on c. */
  private static final List<Integer> SIX = List.of(1, 2, 3, 4, 5, 6);

  private static final Map<Integer, String> TWO_PER_RACK =
      Map.of(1, "a", 2, "a", 3, "b", 4, "b", 5, "c", 6, "c");

  /** A {@link Random} whose every draw is 0: start index and shift 0, as Kafka's fixed start. */
  private static Random zeros() {
    return new Random() {
      @Override
      public int nextInt(int bound) {
        return 0;
      }
    };
  }

  private static Set<String> racksOf(List<Integer> replicas, Map<Integer, String> racks) {
    return replicas.stream().map(racks::get).collect(Collectors.toSet());
  }

  private static Map<Integer, Integer> leaderCounts(List<List<Integer>> assignment) {
    Map<Integer, Integer> leaders = new TreeMap<>();
    assignment.forEach(replicas -> leaders.merge(replicas.get(0), 1, Integer::sum));
    return leaders;
  }

  @Test
  void brokersAreWalkedAlternatelyAcrossRacksAsInKafkasExample() {
    // AdminUtils' documented example: 0 -> rack1, 1 -> rack3, 2 -> rack3, 3 -> rack2, 4 -> rack2,
    // 5 -> rack1.
    Map<Integer, String> racks =
        Map.of(0, "rack1", 1, "rack3", 2, "rack3", 3, "rack2", 4, "rack2", 5, "rack1");

    assertThat(ReplicaPlacement.rackAlternated(List.of(0, 1, 2, 3, 4, 5), racks))
        .containsExactly(0, 3, 1, 5, 4, 2);
  }

  @Test
  void aFixedStartPlacesAsKafkasRackAwareExample() {
    Map<Integer, String> racks =
        Map.of(0, "rack1", 1, "rack3", 2, "rack3", 3, "rack2", 4, "rack2", 5, "rack1");

    List<List<Integer>> assignment =
        ReplicaPlacement.assign(List.of(0, 1, 2, 3, 4, 5), racks, 0, 7, 3, zeros());

    assertThat(assignment)
        .containsExactly(
            List.of(0, 3, 1),
            List.of(3, 1, 5),
            List.of(1, 5, 4),
            List.of(5, 4, 2),
            List.of(4, 2, 0),
            List.of(2, 0, 3),
            // the second round shifts the followers instead of repeating partition 0
            List.of(0, 4, 2));
  }

  @Test
  void withAtLeastAsManyRacksAsReplicasEveryPartitionIsOnDistinctRacks() {
    for (int seed = 0; seed < 20; seed++) {
      for (int rf = 1; rf <= 3; rf++) {
        List<List<Integer>> assignment =
            ReplicaPlacement.assign(SIX, TWO_PER_RACK, 0, 30, rf, new Random(seed));
        for (List<Integer> replicas : assignment) {
          assertThat(replicas).hasSize(rf).doesNotHaveDuplicates();
          assertThat(racksOf(replicas, TWO_PER_RACK)).as("seed %d, %s", seed, replicas).hasSize(rf);
        }
      }
    }
  }

  @Test
  void leadersAndReplicasSpreadEvenlyOverBrokersAndRacks() {
    List<List<Integer>> assignment =
        ReplicaPlacement.assign(SIX, TWO_PER_RACK, 0, 60, 3, new Random(42));

    assertThat(leaderCounts(assignment).values()).containsOnly(10);
    Map<Integer, Integer> replicas = new HashMap<>();
    assignment.forEach(r -> r.forEach(b -> replicas.merge(b, 1, Integer::sum)));
    assertThat(replicas.values()).containsOnly(30);
  }

  @Test
  void consecutiveLeadersChangeRack() {
    List<List<Integer>> assignment =
        ReplicaPlacement.assign(SIX, TWO_PER_RACK, 0, 12, 1, new Random(5));

    for (int p = 1; p < assignment.size(); p++) {
      assertThat(TWO_PER_RACK.get(assignment.get(p).get(0)))
          .isNotEqualTo(TWO_PER_RACK.get(assignment.get(p - 1).get(0)));
    }
  }

  @Test
  void withFewerRacksThanReplicasEveryRackHoldsOneAndNoBrokerTwo() {
    Map<Integer, String> twoRacks = Map.of(1, "a", 2, "a", 3, "a", 4, "b", 5, "b", 6, "b");

    List<List<Integer>> assignment =
        ReplicaPlacement.assign(SIX, twoRacks, 0, 30, 3, new Random(9));

    for (List<Integer> replicas : assignment) {
      assertThat(replicas).hasSize(3).doesNotHaveDuplicates();
      assertThat(racksOf(replicas, twoRacks)).containsExactlyInAnyOrder("a", "b");
    }
    assertThat(leaderCounts(assignment).values()).containsOnly(5);
  }

  @Test
  void aLoneBrokerOnItsRackGetsAReplicaOfEveryPartition() {
    // The rack goal comes first, as in Kafka: racks should be of about the same size.
    Map<Integer, String> racks = Map.of(1, "small", 2, "big", 3, "big", 4, "big");

    List<List<Integer>> assignment =
        ReplicaPlacement.assign(List.of(1, 2, 3, 4), racks, 0, 8, 2, new Random(1));

    assertThat(assignment).allSatisfy(replicas -> assertThat(replicas).contains(1));
  }

  @Test
  void brokersWithoutARackCountAsOneRackOfTheirOwn() {
    // KRaft's StripedReplicaPlacer: a broker without a rack is on the "no rack" rack.
    Map<Integer, String> racks = Map.of(1, "a", 2, "a");

    List<List<Integer>> assignment =
        ReplicaPlacement.assign(List.of(1, 2, 3, 4), racks, 0, 20, 2, new Random(4));

    for (List<Integer> replicas : assignment) {
      assertThat(replicas.stream().filter(racks::containsKey)).as("%s", replicas).hasSize(1);
    }
  }

  @Test
  void racksOnlyOfBrokersNotPlacedOnLeaveThePlacementRackUnaware() {
    // Broker 9 (fenced, say) has a rack; none of the brokers placed on has.
    for (int seed = 0; seed < 10; seed++) {
      assertThat(ReplicaPlacement.assign(BROKERS, Map.of(9, "a"), 3, 17, 3, new Random(seed)))
          .isEqualTo(ReplicaPlacement.assign(BROKERS, 3, 17, 3, new Random(seed)));
    }
  }

  @Test
  void newPartitionsOfARackAwareTopicKeepTheRule() {
    List<List<Integer>> added = ReplicaPlacement.assign(SIX, TWO_PER_RACK, 7, 11, 3, new Random(8));

    assertThat(added).hasSize(11);
    assertThat(added).allSatisfy(r -> assertThat(racksOf(r, TWO_PER_RACK)).hasSize(3));
  }
}
