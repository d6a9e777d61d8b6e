package dev.tributary.server;

import dev.tributary.metadata.BalancePlan;
import java.util.Collections;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A balance plan and the load figures it weighed ({@link BalanceService}).
 *
 * @param sizeBytes each broker's local replicas' log sizes, summed, as it reported them; brokers
 *     whose report is missing are absent
 * @param loadMissingFrom the brokers asked for their load that gave none in time (unreachable,
 *     failed, too slow): the partitions they lead count as 0 bytes-in in the plan
 */
public record BalanceProposal(
    BalancePlan plan, SortedMap<Integer, Long> sizeBytes, SortedSet<Integer> loadMissingFrom) {
  public BalanceProposal {
    sizeBytes = Collections.unmodifiableSortedMap(new TreeMap<>(sizeBytes));
    loadMissingFrom = Collections.unmodifiableSortedSet(new TreeSet<>(loadMissingFrom));
  }

  static BalanceProposal of(BalancePlan plan, ClusterLoads.Gathered gathered) {
    SortedMap<Integer, Long> sizes = new TreeMap<>();
    gathered
        .reports()
        .forEach(
            (id, report) ->
                sizes.put(id, report.sizeBytes().values().stream().mapToLong(l -> l).sum()));
    return new BalanceProposal(plan, sizes, gathered.missingFrom());
  }
}
