package dev.tributary.metadata;

import dev.tributary.common.TopicPartition;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What {@link BalancePlanner} is told besides the metadata image; every part may be empty.
 *
 * @param excluded brokers to empty (decommissioning): never a destination, every movable replica on
 *     them moves off
 * @param racks each broker's rack; empty while brokers register none. When given, every eligible
 *     broker must have one (as Kafka refuses a rack-aware placement with some racks missing)
 * @param bytesInPerSec each partition's produce rate, charged to every replica's broker (followers
 *     write the same bytes); partitions not listed count as 0. Used only to choose between moves
 *     that even out the counts equally
 * @param sizeBytes each partition's log size, to prefer moving small partitions (less to copy);
 *     partitions not listed count as 0
 */
public record BalanceOptions(
    Set<Integer> excluded,
    Map<Integer, String> racks,
    Map<TopicPartition, Double> bytesInPerSec,
    Map<TopicPartition, Long> sizeBytes) {
  public static final BalanceOptions NONE =
      new BalanceOptions(Set.of(), Map.of(), Map.of(), Map.of());

  public BalanceOptions {
    // Sorted copies: the planner iterates them, and its plan must not depend on hash order.
    SortedSet<Integer> sortedExcluded = new TreeSet<>(excluded);
    SortedMap<Integer, String> sortedRacks = new TreeMap<>(racks);
    sortedRacks.forEach(
        (broker, rack) -> {
          if (rack == null || rack.isBlank()) {
            throw new IllegalArgumentException("broker " + broker + " has a blank rack");
          }
        });
    bytesInPerSec.forEach(
        (tp, rate) -> {
          if (rate == null || !Double.isFinite(rate) || rate < 0) {
            throw new IllegalArgumentException("bytes-in/s of " + tp + " is " + rate);
          }
        });
    sizeBytes.forEach(
        (tp, size) -> {
          if (size == null || size < 0) {
            throw new IllegalArgumentException("size of " + tp + " is " + size);
          }
        });
    excluded = Collections.unmodifiableSortedSet(sortedExcluded);
    racks = Collections.unmodifiableSortedMap(sortedRacks);
    bytesInPerSec = Map.copyOf(bytesInPerSec); // looked up only, never iterated
    sizeBytes = Map.copyOf(sizeBytes);
  }

  public BalanceOptions withExcluded(Set<Integer> brokerIds) {
    return new BalanceOptions(brokerIds, racks, bytesInPerSec, sizeBytes);
  }

  public BalanceOptions withRacks(Map<Integer, String> brokerRacks) {
    return new BalanceOptions(excluded, brokerRacks, bytesInPerSec, sizeBytes);
  }

  public BalanceOptions withBytesInPerSec(Map<TopicPartition, Double> rates) {
    return new BalanceOptions(excluded, racks, rates, sizeBytes);
  }

  public BalanceOptions withSizeBytes(Map<TopicPartition, Long> sizes) {
    return new BalanceOptions(excluded, racks, bytesInPerSec, sizes);
  }

  double bytesIn(TopicPartition tp) {
    return bytesInPerSec.getOrDefault(tp, 0.0);
  }

  long size(TopicPartition tp) {
    return sizeBytes.getOrDefault(tp, 0L);
  }
}
