package dev.tributary.server;

import dev.tributary.common.Scheduler;
import dev.tributary.common.TopicPartition;
import dev.tributary.metadata.BalanceOptions;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicImage;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gathers the load of a set of brokers for the balancer: this broker's from its {@link
 * BrokerLoadService}, every other's through {@link PeerLoads}, all at once, and waits at most
 * {@code timeoutMs} (on the scheduler, holding no thread): a broker that has not answered by then,
 * or failed to, contributes nothing and is listed as missing. Then turns the reports into the
 * planner's figures ({@link #weigh}).
 */
final class ClusterLoads {
  private static final Logger logger = LoggerFactory.getLogger(ClusterLoads.class);

  private final BrokerLoadService local;
  private final PeerLoads peers;
  private final Scheduler scheduler;
  private final long timeoutMs;

  ClusterLoads(BrokerLoadService local, PeerLoads peers, Scheduler scheduler, long timeoutMs) {
    this.local = local;
    this.peers = peers;
    this.scheduler = scheduler;
    this.timeoutMs = timeoutMs;
  }

  /**
   * What was gathered.
   *
   * @param reports each broker's report that arrived in time, by broker id
   * @param missingFrom the brokers asked whose report did not (unreachable, failed, too slow)
   */
  record Gathered(SortedMap<Integer, BrokerLoadReport> reports, SortedSet<Integer> missingFrom) {
    Gathered {
      reports = Collections.unmodifiableSortedMap(new TreeMap<>(reports));
      missingFrom = Collections.unmodifiableSortedSet(new TreeSet<>(missingFrom));
    }
  }

  /** Gathered from nobody: no figures, nobody missing. */
  static final Gathered NONE = new Gathered(new TreeMap<>(), new TreeSet<>());

  /**
   * Asks {@code brokerIds} for their load: {@code localBrokerId} (this broker) locally, the others
   * through {@link PeerLoads}. Never fails.
   */
  CompletableFuture<Gathered> gather(int localBrokerId, Collection<Integer> brokerIds) {
    Round round = new Round(new TreeSet<>(brokerIds));
    if (round.asked.isEmpty()) {
      round.finish();
      return round.done;
    }
    Scheduler.Cancellable timer = scheduler.schedule(timeoutMs, round::finish);
    round.done.whenComplete((gathered, failure) -> timer.cancel());
    for (int id : round.asked) {
      CompletableFuture<BrokerLoadReport> answer;
      try {
        answer =
            id == localBrokerId ? CompletableFuture.completedFuture(local.load()) : peers.load(id);
      } catch (RuntimeException e) {
        answer = CompletableFuture.failedFuture(e);
      }
      answer.whenComplete((report, failure) -> round.arrived(id, report, failure));
    }
    return round.done;
  }

  /**
   * The planner's figures from the reports: each partition's bytes-in from its current leader's
   * report only (another broker's figure for it is stale: it led the partition earlier), and its
   * size from its leader's report, else the largest of its replicas'. Partitions without a figure
   * count as 0 in the planner.
   */
  static BalanceOptions weigh(
      BalanceOptions options, MetadataImage image, Map<Integer, BrokerLoadReport> reports) {
    Map<TopicPartition, Double> rates = new HashMap<>();
    Map<TopicPartition, Long> sizes = new HashMap<>();
    for (TopicImage topic : image.topicsByName().values()) {
      for (Map.Entry<Integer, PartitionImage> entry : topic.partitions().entrySet()) {
        TopicPartition tp = new TopicPartition(topic.name(), entry.getKey());
        PartitionImage p = entry.getValue();
        BrokerLoadReport leader = reports.get(p.leader());
        if (leader != null && leader.bytesInPerSec().containsKey(tp)) {
          rates.put(tp, leader.bytesInPerSec().get(tp));
        }
        Long size = leader == null ? null : leader.sizeBytes().get(tp);
        if (size == null) {
          size =
              p.replicas().stream()
                  .map(reports::get)
                  .filter(r -> r != null && r.sizeBytes().containsKey(tp))
                  .map(r -> r.sizeBytes().get(tp))
                  .max(Long::compare)
                  .orElse(null);
        }
        if (size != null) {
          sizes.put(tp, size);
        }
      }
    }
    return options.withBytesInPerSec(rates).withSizeBytes(sizes);
  }

  /**
   * One gathering; completes once, with what arrived by then. The future is completed outside the
   * monitor: what follows it (the plan, an execution's start) takes other locks.
   */
  private static final class Round {
    final SortedSet<Integer> asked;
    final CompletableFuture<Gathered> done = new CompletableFuture<>();

    /** Guarded by {@code this}: each broker that answered, with its report or null (none). */
    private final Map<Integer, BrokerLoadReport> arrived = new HashMap<>();

    private boolean finished;

    Round(SortedSet<Integer> asked) {
      this.asked = asked;
    }

    void arrived(int brokerId, BrokerLoadReport report, Throwable failure) {
      boolean usable = failure == null && report != null && report.brokerId() == brokerId;
      if (!usable) {
        logger.info(
            "Balance: no load figures from broker {}: {}",
            brokerId,
            failure != null
                ? dev.tributary.common.errors.Errors.messageOf(failure)
                : "it answered as broker " + (report == null ? "none" : report.brokerId()));
      }
      boolean all;
      synchronized (this) {
        if (finished) {
          return; // too late: the plan is made without it
        }
        arrived.put(brokerId, usable ? report : null);
        all = arrived.size() == asked.size();
      }
      if (all) {
        finish();
      }
    }

    void finish() {
      Gathered gathered;
      synchronized (this) {
        if (finished) {
          return;
        }
        finished = true;
        SortedMap<Integer, BrokerLoadReport> reports = new TreeMap<>();
        arrived.forEach(
            (id, report) -> {
              if (report != null) {
                reports.put(id, report);
              }
            });
        SortedSet<Integer> missing = new TreeSet<>(asked);
        missing.removeAll(reports.keySet());
        gathered = new Gathered(reports, missing);
      }
      done.complete(gathered);
    }
  }
}
