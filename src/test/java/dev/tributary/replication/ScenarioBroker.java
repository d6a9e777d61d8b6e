package dev.tributary.replication;

import dev.tributary.common.ManualClock;
import dev.tributary.common.TopicPartition;
import dev.tributary.log.LogConfig;
import dev.tributary.log.LogManager;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.TopicImage;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * One broker of a {@link ReplicationScenario}: the real {@link LogManager}, {@link ReplicaManager}
 * and (thread-less) {@link ReplicaFetcherManager} of its current incarnation, over its own log
 * directory, which outlives incarnations.
 *
 * <p>A crash only stops the broker: it fetches and answers nothing more, and its log files are
 * closed as they are (nothing is lost; these stories are not about fsync). Its replica manager is
 * not shut down, so the high watermarks are not checkpointed: the next incarnation starts from the
 * last checkpoint that {@link ReplicaManager#runPeriodicLogTasks} wrote. A clean stop shuts the
 * replica manager down, which checkpoints them.
 */
final class ScenarioBroker {
  final int id;
  private final Path dir;
  private final ManualClock clock;
  private final ReplicationConfig config;
  private final LeaderEndpoint endpoint;

  /** Counts the processes started on this directory; the incarnation id names the current one. */
  int incarnation;

  /** The broker epoch of the current registration (-1 until it registers). */
  long brokerEpoch = -1;

  boolean up;

  /** While set, committed metadata does not reach this broker (its metadata log lags). */
  boolean metadataHeld;

  LogManager logs;
  ReplicaFetcherManager fetchers;
  ReplicaManager replicas;

  ScenarioBroker(
      int id, Path dir, ManualClock clock, ReplicationConfig config, LeaderEndpoint endpoint) {
    this.id = id;
    this.dir = dir;
    this.clock = clock;
    this.config = config;
    this.endpoint = endpoint;
  }

  /**
   * Starts a new incarnation: loads the logs on disk (with their topics' configs from {@code
   * image}) and builds the replica manager, which sends its ISR changes through the sender {@code
   * senders} gives for the new incarnation. It knows no metadata yet.
   */
  void start(MetadataImage image, IntFunction<AlterPartitionSender> senders) {
    incarnation++;
    metadataHeld = false;
    logs = new LogManager(dir, clock);
    logs.loadLogs(
        tp ->
            Optional.of(
                LogConfig.fromMap(
                    image.topic(tp.topic()).map(TopicImage::configs).orElse(Map.of()))));
    fetchers = ReplicaFetcherManager.manual(id, () -> brokerEpoch, endpoint, config, clock);
    replicas =
        new ReplicaManager(
            id, logs, clock, Runnable::run, clock, config, senders.apply(incarnation), fetchers);
    up = true;
  }

  /** The process dies: see the class doc. */
  void crash() {
    up = false;
    logs.shutdown();
  }

  /** A clean stop: long polls answered, high watermarks and log checkpoints written. */
  void stop() {
    up = false;
    replicas.releaseFetchWaiters();
    replicas.shutdown();
    logs.shutdown();
  }

  /** Applies {@code image} unless this broker is down or its metadata is held. */
  void deliver(MetadataImage image) {
    if (up && !metadataHeld) {
      replicas.onMetadataUpdate(image);
    }
  }

  /** The partitions this broker hosts, in name order. */
  List<Partition> partitions() {
    return replicas.partitions().stream()
        .sorted(Comparator.comparing(p -> p.topicPartition().toString()))
        .toList();
  }

  Optional<Partition> partition(TopicPartition tp) {
    return replicas.partition(tp);
  }

  String name() {
    return "b" + id;
  }
}
