package dev.tributary.demo;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a crash cost, by value: which acknowledged records a full read back no longer finds. A
 * record counts as acknowledged when the broker answered its produce with an offset; it counts as
 * kept when its value is read back at any offset (a retried batch may be stored twice, so values
 * read more than once are counted as duplicates, not as losses). Pure: no I/O.
 *
 * @param acknowledged how many distinct values were acknowledged
 * @param lost the acknowledged values not read back, by the offset their acknowledgement gave
 * @param readBack how many records the read back returned
 * @param duplicates how many of those repeat a value read before
 */
record RecordLoss(int acknowledged, SortedMap<Long, String> lost, int readBack, int duplicates) {

  /**
   * Compares {@code acknowledged} (value → the offset its produce answered) with the values of a
   * full read back.
   */
  static RecordLoss of(Map<String, Long> acknowledged, Collection<String> readBack) {
    Map<String, Integer> seen = new HashMap<>();
    int duplicates = 0;
    for (String value : readBack) {
      if (seen.merge(value, 1, Integer::sum) > 1) {
        duplicates++;
      }
    }
    SortedMap<Long, String> lost = new TreeMap<>();
    acknowledged.forEach(
        (value, offset) -> {
          if (!seen.containsKey(value)) {
            lost.put(offset, value);
          }
        });
    return new RecordLoss(acknowledged.size(), lost, readBack.size(), duplicates);
  }

  /**
   * The acknowledged offsets at or above {@code from}: what a replica with LEO {@code from} lacks.
   */
  static List<Long> offsetsFrom(Map<String, Long> acknowledged, long from) {
    return acknowledged.values().stream().filter(o -> o >= from).sorted().toList();
  }

  /** Offsets as runs, {@code [3, 4, 5, 9]} → {@code "3–5, 9"}; {@code "-"} when none. */
  static String ranges(Collection<Long> offsets) {
    List<Long> sorted = offsets.stream().sorted().distinct().toList();
    if (sorted.isEmpty()) {
      return "-";
    }
    List<String> runs = new ArrayList<>();
    long start = sorted.get(0);
    long prev = start;
    for (int i = 1; i <= sorted.size(); i++) {
      if (i < sorted.size() && sorted.get(i) == prev + 1) {
        prev = sorted.get(i);
        continue;
      }
      runs.add(start == prev ? String.valueOf(start) : start + "–" + prev);
      if (i < sorted.size()) {
        start = sorted.get(i);
        prev = start;
      }
    }
    return String.join(", ", runs);
  }
}
