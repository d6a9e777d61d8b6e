package dev.tributary.group.assignor;

import static dev.tributary.group.assignor.AssignorTestSupport.subscribing;
import static dev.tributary.group.assignor.AssignorTestSupport.tp;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RoundRobinAssignorTest {
  private final PartitionAssignor roundRobin = new RoundRobinAssignor();

  @Test
  void equalSubscriptionsAreDealtAlternately() {
    // Kafka's RoundRobinAssignor javadoc, first example.
    var assignment =
        roundRobin.assign(
            Map.of("t0", 3, "t1", 3),
            Map.of("C0", subscribing("t0", "t1"), "C1", subscribing("t0", "t1")));

    assertThat(assignment)
        .containsOnly(
            Map.entry("C0", List.of(tp("t0", 0), tp("t0", 2), tp("t1", 1))),
            Map.entry("C1", List.of(tp("t0", 1), tp("t1", 0), tp("t1", 2))));
  }

  @Test
  void membersNotSubscribedToATopicAreSkippedForItsPartitions() {
    // Kafka's RoundRobinAssignor javadoc, second example: the result is unbalanced.
    var assignment =
        roundRobin.assign(
            Map.of("t0", 1, "t1", 2, "t2", 3),
            Map.of(
                "C0", subscribing("t0"),
                "C1", subscribing("t0", "t1"),
                "C2", subscribing("t0", "t1", "t2")));

    assertThat(assignment)
        .containsOnly(
            Map.entry("C0", List.of(tp("t0", 0))),
            Map.entry("C1", List.of(tp("t1", 0))),
            Map.entry("C2", List.of(tp("t1", 1), tp("t2", 0), tp("t2", 1), tp("t2", 2))));
  }

  @Test
  void dealingContinuesAcrossTopicsFromWhereTheLastTopicStopped() {
    var assignment =
        roundRobin.assign(
            Map.of("a", 1, "b", 2),
            Map.of(
                "m1", subscribing("a", "b"), "m2", subscribing("a", "b"), "m3", subscribing("b")));

    assertThat(assignment)
        .containsOnly(
            Map.entry("m1", List.of(tp("a", 0))),
            Map.entry("m2", List.of(tp("b", 0))),
            Map.entry("m3", List.of(tp("b", 1))));
  }

  @Test
  void topicsWithoutMetadataAndMembersWithoutTopicsAreIgnored() {
    var assignment =
        roundRobin.assign(
            Map.of("t", 2), Map.of("a", subscribing("t", "missing"), "b", subscribing("missing")));

    assertThat(assignment)
        .containsOnly(Map.entry("a", List.of(tp("t", 0), tp("t", 1))), Map.entry("b", List.of()));
  }
}
