package dev.tributary.group.assignor;

import static dev.tributary.group.assignor.AssignorTestSupport.subscribing;
import static dev.tributary.group.assignor.AssignorTestSupport.tp;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RangeAssignorTest {
  private final PartitionAssignor range = new RangeAssignor();

  @Test
  void twoMembersOfTwoTopicsOfThreePartitionsGiveTheFirstMemberTheExtraOfEachTopic() {
    // Kafka's RangeAssignor javadoc example.
    var assignment =
        range.assign(
            Map.of("t0", 3, "t1", 3),
            Map.of("C0", subscribing("t0", "t1"), "C1", subscribing("t1", "t0")));

    assertThat(assignment)
        .containsOnly(
            Map.entry("C0", List.of(tp("t0", 0), tp("t0", 1), tp("t1", 0), tp("t1", 1))),
            Map.entry("C1", List.of(tp("t0", 2), tp("t1", 2))));
  }

  @Test
  void rangesAreContiguousAndTheFirstMembersByIdTakeTheRemainder() {
    var assignment =
        range.assign(
            Map.of("t", 7),
            Map.of("b", subscribing("t"), "c", subscribing("t"), "a", subscribing("t")));

    assertThat(assignment)
        .containsOnly(
            Map.entry("a", List.of(tp("t", 0), tp("t", 1), tp("t", 2))),
            Map.entry("b", List.of(tp("t", 3), tp("t", 4))),
            Map.entry("c", List.of(tp("t", 5), tp("t", 6))));
  }

  @Test
  void eachTopicIsSplitOnlyAmongItsOwnSubscribers() {
    var assignment =
        range.assign(
            Map.of("t0", 3, "t1", 2),
            Map.of(
                "C0", subscribing("t0"), "C1", subscribing("t0", "t1"), "C2", subscribing("t1")));

    assertThat(assignment)
        .containsOnly(
            Map.entry("C0", List.of(tp("t0", 0), tp("t0", 1))),
            Map.entry("C1", List.of(tp("t0", 2), tp("t1", 0))),
            Map.entry("C2", List.of(tp("t1", 1))));
  }

  @Test
  void membersBeyondThePartitionCountGetEmptyEntries() {
    var assignment =
        range.assign(
            Map.of("t", 1),
            Map.of("a", subscribing("t"), "b", subscribing("t"), "c", subscribing()));

    assertThat(assignment)
        .containsOnly(
            Map.entry("a", List.of(tp("t", 0))),
            Map.entry("b", List.of()),
            Map.entry("c", List.of()));
  }

  @Test
  void subscribedTopicsWithoutMetadataAreIgnored() {
    var assignment = range.assign(Map.of("t", 2), Map.of("a", subscribing("t", "missing")));

    assertThat(assignment).containsOnly(Map.entry("a", List.of(tp("t", 0), tp("t", 1))));
  }

  @Test
  void noMembersGiveAnEmptyAssignment() {
    assertThat(range.assign(Map.of("t", 3), Map.of())).isEmpty();
  }

  @Test
  void negativePartitionCountsAreRejected() {
    assertThatThrownBy(() -> range.assign(Map.of("t", -1), Map.of("a", subscribing("t"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("t");
  }
}
