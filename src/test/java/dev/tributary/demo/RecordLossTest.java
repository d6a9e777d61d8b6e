package dev.tributary.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordLossTest {
  private static Map<String, Long> acknowledged(String prefix, long from, int count) {
    Map<String, Long> acked = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      acked.put(prefix + "-" + (i + 1), from + i);
    }
    return acked;
  }

  @Test
  void acknowledgedValuesMissingFromTheReadBackAreLostWithTheirOffsets() {
    Map<String, Long> acked = acknowledged("a", 10, 5); // a-1..a-5 at offsets 10..14
    RecordLoss loss = RecordLoss.of(acked, List.of("a-1", "a-2", "a-4"));

    assertThat(loss.acknowledged()).isEqualTo(5);
    assertThat(loss.lost()).containsExactly(Map.entry(12L, "a-3"), Map.entry(14L, "a-5"));
    assertThat(loss.readBack()).isEqualTo(3);
    assertThat(loss.duplicates()).isZero();
  }

  @Test
  void aValueStoredTwiceByARetryIsADuplicateNotALossAndUnacknowledgedValuesDoNotCount() {
    Map<String, Long> acked = acknowledged("b", 0, 3);
    RecordLoss loss = RecordLoss.of(acked, List.of("b-1", "b-2", "b-2", "b-3", "never-acked"));

    assertThat(loss.lost()).isEmpty();
    assertThat(loss.duplicates()).isEqualTo(1);
    assertThat(loss.readBack()).isEqualTo(5);
  }

  @Test
  void whatAReplicaWithAGivenLogEndOffsetLacksIsEveryAcknowledgedOffsetFromIt() {
    Map<String, Long> acked = acknowledged("c", 3, 4); // offsets 3..6
    assertThat(RecordLoss.offsetsFrom(acked, 5)).containsExactly(5L, 6L);
    assertThat(RecordLoss.offsetsFrom(acked, 0)).containsExactly(3L, 4L, 5L, 6L);
    assertThat(RecordLoss.offsetsFrom(acked, 7)).isEmpty();
  }

  @Test
  void offsetsPrintAsRuns() {
    assertThat(RecordLoss.ranges(List.of(9L, 3L, 4L, 5L, 11L, 12L))).isEqualTo("3–5, 9, 11–12");
    assertThat(RecordLoss.ranges(List.of(7L))).isEqualTo("7");
    assertThat(RecordLoss.ranges(List.of())).isEqualTo("-");
  }
}
