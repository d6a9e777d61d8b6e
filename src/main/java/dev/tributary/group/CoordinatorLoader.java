package dev.tributary.group;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.Record;
import dev.tributary.log.record.RecordBatch;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads and unloads shards (after Kafka's {@code CoordinatorLoader} and its runtime's load and
 * unload operations). When this broker becomes leader of a partition of {@code __consumer_offsets}
 * it reads the partition back from its log start to its log end, replays every record into the
 * groups and offsets it stands for, and only then opens the shard; when it resigns, the shard's
 * groups are dropped and every member waiting on them is told NOT_COORDINATOR. Whichever broker
 * leads next rebuilds the same state from the same records: there is no other replication of group
 * state.
 *
 * <p>Replay, as Kafka's: the last record of a key wins; a tombstone (null value) removes an offset,
 * or a group's metadata (its offsets have tombstones of their own); a group with offsets but no
 * metadata loads Empty; a stored generation loads Stable with its members, each on a fresh session
 * timeout ({@link GroupRebalancer#restore}).
 *
 * <p>Thread safety: {@link #onBecomeLeader}, {@link #onResign} and {@link #shutdown} take the
 * coordinator lock. Reading runs on {@code loader} outside the lock; between chunks, and before it
 * installs what it read, the load checks under the lock that its shard is still current, so a load
 * overtaken by a newer epoch or a resignation drops its work. A read that fails is retried after
 * {@link #LOAD_RETRY_MS} on {@code scheduler}.
 */
final class CoordinatorLoader {
  private static final Logger logger = LoggerFactory.getLogger(CoordinatorLoader.class);
  private static final int LOAD_CHUNK_BYTES = 1 << 20;
  static final long LOAD_RETRY_MS = 1_000;

  private final CoordinatorRuntime runtime;
  private final GroupRebalancer rebalancer;
  private final CoordinatorLog log;
  private final Time time;
  private final Scheduler scheduler;
  private final Executor loader;

  CoordinatorLoader(
      CoordinatorRuntime runtime,
      GroupRebalancer rebalancer,
      CoordinatorLog log,
      Time time,
      Scheduler scheduler,
      Executor loader) {
    this.runtime = runtime;
    this.rebalancer = rebalancer;
    this.log = log;
    this.time = time;
    this.scheduler = scheduler;
    this.loader = loader;
  }

  /** See {@link GroupCoordinator#onBecomeLeader}. */
  void onBecomeLeader(int partition, int leaderEpoch) {
    CoordinatorShard shard;
    synchronized (runtime) {
      CoordinatorShard current = runtime.shard(partition);
      if (runtime.isClosed() || (current != null && current.leaderEpoch == leaderEpoch)) {
        return;
      }
      if (current != null) {
        unload(current, "its leadership changed to epoch " + leaderEpoch);
      }
      shard = new CoordinatorShard(partition, leaderEpoch);
      runtime.install(shard);
    }
    loader.execute(() -> load(shard));
  }

  /** See {@link GroupCoordinator#onResign}. */
  void onResign(int partition) {
    synchronized (runtime) {
      CoordinatorShard shard = runtime.remove(partition);
      if (shard != null) {
        unload(shard, "this broker no longer leads " + shard.topicPartitionName());
      }
    }
  }

  /** Unloads every shard and refuses new ones. */
  void shutdown() {
    synchronized (runtime) {
      runtime.markClosed();
      for (CoordinatorShard shard : List.copyOf(runtime.shards())) {
        unload(shard, "the broker is shutting down");
      }
      runtime.clear();
    }
  }

  /** Drops the shard's groups: timers cancelled, waiting members told NOT_COORDINATOR, Dead. */
  private void unload(CoordinatorShard shard, String why) {
    long nowMs = time.milliseconds();
    for (ConsumerGroup group : shard.groups.values()) {
      rebalancer.unload(group, nowMs);
    }
    logger.info(
        "Unloaded {} group(s) of {}: {}", shard.groups.size(), shard.topicPartitionName(), why);
    shard.groups.clear();
  }

  /** Replays the partition from its log start to its log end, then opens the shard for requests. */
  private void load(CoordinatorShard shard) {
    long startNs = time.nanoseconds();
    Replayed replayed = new Replayed();
    try {
      long next = 0;
      while (true) {
        synchronized (runtime) {
          if (!runtime.isCurrent(shard)) {
            return; // leadership moved on while loading
          }
        }
        CoordinatorLog.Chunk chunk = log.read(shard.partition, next, LOAD_CHUNK_BYTES);
        next = Math.max(next, chunk.logStartOffset());
        if (!chunk.batches().hasRemaining()) {
          if (next >= chunk.logEndOffset()) {
            break;
          }
          throw new IllegalStateException(
              "read at " + next + " returned nothing before log end " + chunk.logEndOffset());
        }
        for (RecordBatch batch : BatchIterator.lenient(chunk.batches())) {
          if (!batch.isControlBatch()) {
            for (Record record : batch.records()) {
              if (record.offset() >= next) {
                replayed.replay(record);
              }
            }
          }
          next = Math.max(next, batch.nextOffset());
        }
      }
    } catch (RuntimeException e) {
      logger.warn(
          "Could not load {} yet; retrying in {} ms", shard.topicPartitionName(), LOAD_RETRY_MS, e);
      scheduler.schedule(
          LOAD_RETRY_MS,
          () -> {
            synchronized (runtime) {
              if (!runtime.isCurrent(shard)) {
                return;
              }
            }
            loader.execute(() -> load(shard));
          });
      return;
    }
    synchronized (runtime) {
      if (!runtime.isCurrent(shard)) {
        return;
      }
      install(shard, replayed, startNs);
    }
  }

  /** Builds the shard's groups from what was replayed and opens the shard. Under the lock. */
  private void install(CoordinatorShard shard, Replayed replayed, long startNs) {
    long nowMs = time.milliseconds();
    Set<String> ids = new TreeSet<>(replayed.stored.keySet());
    replayed.offsets.forEach(
        (groupId, groupOffsets) -> {
          if (!groupOffsets.isEmpty()) {
            ids.add(groupId); // a group with offsets but no metadata is Empty, as in Kafka
          }
        });
    for (String groupId : ids) {
      ConsumerGroup group = new ConsumerGroup(groupId, nowMs);
      group.offsets.putAll(replayed.offsets.getOrDefault(groupId, Map.of()));
      GroupRecords.StoredGroup g = replayed.stored.get(groupId);
      if (g != null) {
        rebalancer.restore(group, g, nowMs);
      }
      shard.groups.put(groupId, group);
    }
    shard.finishLoading();
    long tookMs = (time.nanoseconds() - startNs) / 1_000_000;
    runtime.record(
        new GroupEvent(
            nowMs,
            "",
            -1,
            GroupEvent.Type.COORDINATOR_LOADED,
            "coordinator for "
                + shard.topicPartitionName()
                + " (leader epoch "
                + shard.leaderEpoch
                + ") loaded "
                + shard.groups.size()
                + " group(s) from "
                + replayed.records
                + " record(s) in "
                + tookMs
                + " ms"));
  }

  /** What the records of one partition say so far: each group's metadata and offsets. */
  private static final class Replayed {
    final Map<String, GroupRecords.StoredGroup> stored = new LinkedHashMap<>();
    final Map<String, Map<TopicPartition, OffsetAndMetadata>> offsets = new LinkedHashMap<>();
    long records;

    void replay(Record record) {
      records++;
      if (record.key() == null) {
        return;
      }
      GroupRecords.Key key;
      try {
        key = GroupRecords.readKey(record.key());
      } catch (RuntimeException e) {
        logger.warn(
            "Skipping a record of unknown kind at offset {}: {}", record.offset(), e.getMessage());
        return;
      }
      if (key instanceof GroupRecords.OffsetKey ok) {
        Map<TopicPartition, OffsetAndMetadata> groupOffsets =
            offsets.computeIfAbsent(ok.groupId(), g -> new HashMap<>());
        if (record.value() == null) {
          groupOffsets.remove(ok.topicPartition());
        } else {
          groupOffsets.put(ok.topicPartition(), GroupRecords.readOffsetValue(record.value()));
        }
      } else if (key instanceof GroupRecords.GroupKey gk) {
        if (record.value() == null) {
          stored.remove(gk.groupId()); // its offsets have tombstones of their own, as in Kafka
        } else {
          stored.put(gk.groupId(), GroupRecords.readGroupValue(record.value()));
        }
      }
    }
  }
}
