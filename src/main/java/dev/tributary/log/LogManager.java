package dev.tributary.log;

import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * Owns a data directory of partition logs ({@code <dataDir>/<topic>-<partition>/}) and the files
 * beside them:
 *
 * <ul>
 *   <li>{@code recovery-point-offset-checkpoint}, {@code log-start-offset-checkpoint}: Kafka's
 *       checkpoint text format ({@link OffsetCheckpointFile}), written atomically.
 *   <li>{@code cleaner-offset-checkpoint}: each compacted log's first dirty offset (Kafka's file of
 *       that name), written after every cleaning pass and with the other checkpoints; trusted only
 *       after a clean shutdown.
 *   <li>{@code .tributary_cleanshutdown}: written last by {@link #shutdown}; if present at load,
 *       recovery is skipped. It is deleted at load, so a crash after that is detected at the next
 *       start.
 * </ul>
 *
 * <p>A driver calls {@link #runPeriodicTasks} on a schedule (flush by flush.ms, retention,
 * checkpoints). The one thread of its own, the {@link LogCleaner}'s {@code tributary-log-cleaner},
 * starts only in {@link #startup} and stops in {@link #shutdown}; without {@link #startup} nothing
 * is compacted unless someone calls {@code cleaner().cleanOnce()}.
 *
 * <p>Disk trouble (docs/adr/0015-offline-log-dir.md): every I/O failure of a log or of these files
 * is reported to the {@link LogDirFailureChannel}, which takes the directory offline once. From
 * then on nothing here writes: no new logs, no checkpoints, no flushes or retention, and {@link
 * #shutdown} leaves no clean shutdown marker, so the next start recovers every log (truncating a
 * torn tail). The logs keep serving reads of what they had made visible.
 *
 * <p>Concurrency: logs live in a concurrent map; each {@link PartitionLog} has its own lock, so
 * appends to different partitions proceed in parallel. Lock order: (LogManager has no lock) then a
 * partition log's lock. {@link #getOrCreateLog} is atomic per partition. {@link #loadLogs} and
 * {@link #shutdown} must not run concurrently with other calls.
 */
public final class LogManager {
  private static final System.Logger LOG = System.getLogger(LogManager.class.getName());

  public static final String RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint";
  public static final String LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint";
  public static final String CLEANER_OFFSET_CHECKPOINT = "cleaner-offset-checkpoint";

  /**
   * Each hosted partition's high watermark (Kafka's file of that name), written by the replica
   * manager, which owns the high watermark; read at start so consumers do not briefly see less.
   */
  public static final String REPLICATION_OFFSET_CHECKPOINT = "replication-offset-checkpoint";

  public static final String CLEAN_SHUTDOWN_FILE = ".tributary_cleanshutdown";

  private final Path dataDir;
  private final Time time;
  private final ConcurrentHashMap<TopicPartition, PartitionLog> logs = new ConcurrentHashMap<>();
  private final OffsetCheckpointFile recoveryPointCheckpoint;
  private final OffsetCheckpointFile logStartOffsetCheckpoint;
  private final OffsetCheckpointFile cleanerOffsetCheckpoint;
  private final OffsetCheckpointFile highWatermarkCheckpoint;
  private final LogCleaner cleaner;

  /** Serializes checkpoint writers (the periodic task and shutdown). */
  private final Object checkpointLock = new Object();

  private final Executor deletionExecutor;

  /** Where every I/O failure under {@code dataDir} is reported; see the class doc. */
  private final LogDirFailureChannel failures;

  /** The broker's disk, shared by every log here; slowed only as an injected fault. */
  private final SlowDisk disk;

  public LogManager(Path dataDir, Time time) {
    this(dataDir, time, Runnable::run);
  }

  /**
   * @param deletionExecutor deletes the files of removed logs (renamed {@code *-delete} first, so a
   *     crash midway leaves nothing a restart would load)
   */
  public LogManager(Path dataDir, Time time, Executor deletionExecutor) {
    this(dataDir, time, deletionExecutor, LogCleaner.Config.defaults());
  }

  /**
   * @param cleanerConfig the broker's {@code log.cleaner.*} settings for the {@link LogCleaner}
   */
  public LogManager(
      Path dataDir, Time time, Executor deletionExecutor, LogCleaner.Config cleanerConfig) {
    this(dataDir, time, deletionExecutor, cleanerConfig, new LogDirFailureChannel());
  }

  /**
   * @param failures where I/O failures of {@code dataDir} are reported (the broker listens to it:
   *     it tells the controller, which moves this broker's leaderships away)
   */
  public LogManager(
      Path dataDir,
      Time time,
      Executor deletionExecutor,
      LogCleaner.Config cleanerConfig,
      LogDirFailureChannel failures) {
    this(dataDir, time, deletionExecutor, cleanerConfig, failures, new SlowDisk());
  }

  /**
   * @param disk slows every log's writes and fsyncs when a test or the demo asks ({@link
   *     SlowDisk}); the broker's one instance
   */
  public LogManager(
      Path dataDir,
      Time time,
      Executor deletionExecutor,
      LogCleaner.Config cleanerConfig,
      LogDirFailureChannel failures,
      SlowDisk disk) {
    this.dataDir = dataDir;
    this.failures = failures;
    this.disk = disk;
    this.time = time;
    this.deletionExecutor = deletionExecutor;
    this.recoveryPointCheckpoint =
        new OffsetCheckpointFile(dataDir.resolve(RECOVERY_POINT_CHECKPOINT));
    this.logStartOffsetCheckpoint =
        new OffsetCheckpointFile(dataDir.resolve(LOG_START_OFFSET_CHECKPOINT));
    this.cleanerOffsetCheckpoint =
        new OffsetCheckpointFile(dataDir.resolve(CLEANER_OFFSET_CHECKPOINT));
    this.highWatermarkCheckpoint =
        new OffsetCheckpointFile(dataDir.resolve(REPLICATION_OFFSET_CHECKPOINT));
    this.cleaner =
        new LogCleaner(cleanerConfig, time, this::allLogs, this::checkpointCleanerOffsets);
  }

  /**
   * Starts the log cleaner's thread, {@code tributary-log-cleaner}. Call after {@link #loadLogs}.
   */
  public void startup() {
    cleaner.startup();
  }

  public LogDirFailureChannel failureChannel() {
    return failures;
  }

  /** True once an I/O failure took this data directory offline (until the process restarts). */
  public boolean isOffline() {
    return failures.isOffline(dataDir);
  }

  /** Why the directory is offline, if it is. */
  public Optional<LogDirFailureChannel.OfflineLogDir> offlineLogDir() {
    return failures.offlineLogDir(dataDir);
  }

  public Path dataDir() {
    return dataDir;
  }

  /**
   * Checks that {@code dir} takes a write and an fsync: creates it if needed, writes, fsyncs and
   * deletes a probe file {@code .tributary_probe}. The broker runs it before anything else at
   * startup, so that a full or read-only data directory fails the start with one clear message
   * instead of half-way through writing its files.
   *
   * @throws KafkaStorageException naming the directory and the I/O error
   */
  public static void checkWritable(Path dir) {
    Path probe = dir.resolve(".tributary_probe");
    try {
      Files.createDirectories(dir);
      try (var channel =
          FileIo.open(
              probe,
              java.nio.file.StandardOpenOption.CREATE,
              java.nio.file.StandardOpenOption.WRITE,
              java.nio.file.StandardOpenOption.TRUNCATE_EXISTING)) {
        FileIo.writeFully(channel, 0, java.nio.ByteBuffer.wrap(new byte[] {1}));
        channel.force(true);
      }
      Files.delete(probe);
      FileIo.fsyncDirectory(dir);
    } catch (IOException e) {
      throw new KafkaStorageException(
          "data directory "
              + dir.toAbsolutePath()
              + " is not writable ("
              + e
              + "); free space or fix its permissions, then start the broker again",
          e);
    }
  }

  /** Reports {@code cause} (the directory goes offline) and returns the error to throw. */
  private KafkaStorageException storageError(String what, Throwable cause) {
    if (cause instanceof KafkaStorageException k) {
      return k;
    }
    failures.maybeAddOfflineLogDir(dataDir, what, cause);
    return new KafkaStorageException(
        what + " failed (" + cause.getMessage() + "); log directory " + dataDir + " is offline",
        cause);
  }

  private void ensureOnline(String refused) {
    if (isOffline()) {
      throw LogLock.offline(failures, dataDir, refused);
    }
  }

  /** The compaction side: tools and tests may call {@link LogCleaner#cleanOnce} directly. */
  public LogCleaner cleaner() {
    return cleaner;
  }

  /**
   * Loads every partition directory, recovering them unless the last shutdown was clean. A
   * directory whose topic has no config (the topic was deleted while the broker was down) is
   * deleted, as are directories left by an interrupted deletion. Unparseable directory names are
   * skipped with a warning.
   */
  public Map<TopicPartition, PartitionLog> loadLogs(
      Function<TopicPartition, Optional<LogConfig>> configFor) {
    return loadLogs(configFor, tp -> Optional.empty());
  }

  /**
   * As {@link #loadLogs(Function)}, and a directory whose {@code partition.metadata} names another
   * topic id than {@code topicIdFor} gives (an older topic of the same name, deleted while this
   * broker was away) is deleted too.
   */
  public Map<TopicPartition, PartitionLog> loadLogs(
      Function<TopicPartition, Optional<LogConfig>> configFor,
      Function<TopicPartition, Optional<String>> topicIdFor) {
    try {
      Files.createDirectories(dataDir);
      Path marker = dataDir.resolve(CLEAN_SHUTDOWN_FILE);
      boolean hadCleanShutdown = Files.exists(marker);
      Map<TopicPartition, Long> recoveryPoints = readCheckpoint(recoveryPointCheckpoint);
      Map<TopicPartition, Long> logStartOffsets = readCheckpoint(logStartOffsetCheckpoint);
      // After a crash the checkpoint may not have seen a truncation (it is written every few
      // seconds): records written again below it would pass for clean and never supersede older
      // ones. Cleaning each compacted log once from its start is cheaper than that risk.
      Map<TopicPartition, Long> firstDirtyOffsets =
          hadCleanShutdown ? readCheckpoint(cleanerOffsetCheckpoint) : Map.of();
      try (DirectoryStream<Path> dirs = Files.newDirectoryStream(dataDir, Files::isDirectory)) {
        for (Path dir : dirs) {
          loadLog(dir, configFor, topicIdFor, recoveryPoints, logStartOffsets, hadCleanShutdown);
        }
      }
      firstDirtyOffsets.forEach(
          (tp, offset) -> {
            PartitionLog log = logs.get(tp);
            if (log != null) {
              log.cleaning().loadFirstDirtyOffset(offset);
            }
          });
      if (!hadCleanShutdown && !logs.isEmpty()) {
        LOG.log(
            Level.INFO,
            "no clean shutdown marker in {0}: recovered {1} log(s) from their recovery points",
            dataDir,
            logs.size());
      }
      Files.deleteIfExists(marker);
      FileIo.fsyncDirectory(dataDir);
      return Map.copyOf(logs);
    } catch (IOException | LogStorageException e) {
      throw storageError("loading the logs in " + dataDir, e);
    }
  }

  private void loadLog(
      Path dir,
      Function<TopicPartition, Optional<LogConfig>> configFor,
      Function<TopicPartition, Optional<String>> topicIdFor,
      Map<TopicPartition, Long> recoveryPoints,
      Map<TopicPartition, Long> logStartOffsets,
      boolean hadCleanShutdown)
      throws IOException {
    String name = dir.getFileName().toString();
    if (name.endsWith("-delete")) {
      FileIo.deleteRecursively(dir);
      return;
    }
    TopicPartition tp;
    try {
      tp = TopicPartition.fromDirName(name);
    } catch (IllegalArgumentException e) {
      LOG.log(Level.WARNING, "skipping {0}: not a partition directory", dir);
      return;
    }
    Optional<LogConfig> config = configFor.apply(tp);
    if (config.isEmpty()) {
      LOG.log(Level.INFO, "deleting {0}: topic {1} no longer exists", dir, tp.topic());
      FileIo.deleteRecursively(dir);
      return;
    }
    Optional<String> expectedId = topicIdFor.apply(tp);
    Optional<String> storedId = PartitionMetadataFile.read(dir);
    if (expectedId.isPresent() && storedId.isPresent() && !expectedId.equals(storedId)) {
      LOG.log(
          Level.INFO,
          "deleting {0}: it belongs to an earlier topic {1} (id {2}, now {3})",
          dir,
          tp.topic(),
          storedId.get(),
          expectedId.get());
      FileIo.deleteRecursively(dir);
      return;
    }
    if (expectedId.isPresent() && storedId.isEmpty()) {
      PartitionMetadataFile.write(dir, expectedId.get());
    }
    PartitionLog log =
        LogLoader.open(
            dir,
            tp,
            config.get(),
            recoveryPoints.getOrDefault(tp, 0L),
            logStartOffsets.getOrDefault(tp, 0L),
            hadCleanShutdown,
            time,
            failures,
            disk);
    logs.put(tp, log);
  }

  private Map<TopicPartition, Long> readCheckpoint(OffsetCheckpointFile checkpoint) {
    try {
      return checkpoint.read();
    } catch (IOException e) {
      LOG.log(
          Level.WARNING,
          "ignoring corrupt checkpoint {0} (logs recover from offset 0): {1}",
          checkpoint.file(),
          e.getMessage());
      return Map.of();
    }
  }

  /**
   * The partition's log, created empty with {@code config} if it does not exist (an existing log
   * keeps its config).
   */
  public PartitionLog getOrCreateLog(TopicPartition tp, LogConfig config) {
    PartitionLog existing = logs.get(tp);
    if (existing != null) {
      return existing;
    }
    ensureOnline("creating the log of " + tp);
    return logs.computeIfAbsent(
        tp,
        key ->
            LogLoader.open(
                dataDir.resolve(key.dirName()), key, config, 0, 0, true, time, failures, disk));
  }

  /**
   * The partition's log for topic id {@code topicId}: an existing log of another topic id (an older
   * topic of the same name) is deleted first, and a new log records the id in its {@code
   * partition.metadata}.
   */
  public PartitionLog getOrCreateLog(TopicPartition tp, LogConfig config, String topicId) {
    try {
      return getOrCreateLogWithId(tp, config, topicId);
    } catch (LogStorageException e) {
      throw storageError("creating the log of " + tp, e);
    }
  }

  private PartitionLog getOrCreateLogWithId(TopicPartition tp, LogConfig config, String topicId) {
    PartitionLog existing = logs.get(tp);
    if (existing != null) {
      Optional<String> storedId = PartitionMetadataFile.read(existing.dir());
      if (storedId.isPresent() && !storedId.get().equals(topicId)) {
        deleteLog(tp);
      } else {
        if (storedId.isEmpty()) {
          PartitionMetadataFile.write(existing.dir(), topicId);
        }
        return existing;
      }
    }
    PartitionLog log = getOrCreateLog(tp, config);
    PartitionMetadataFile.write(log.dir(), topicId);
    return log;
  }

  public Optional<PartitionLog> getLog(TopicPartition tp) {
    return Optional.ofNullable(logs.get(tp));
  }

  /**
   * Removes the partition's log; a no-op for an unknown partition. In order: the checkpoints are
   * rewritten without it (a topic re-created under the same name must not inherit its log start
   * offset or recovery point), the directory is renamed out of the way (cheap, so this is safe on
   * the metadata thread), and the files are deleted by the deletion executor.
   */
  public void deleteLog(TopicPartition tp) {
    PartitionLog log = logs.remove(tp);
    if (log == null) {
      return;
    }
    if (isOffline()) {
      // Nothing may be written: the directory stays, and the next start deletes it (its topic is
      // gone from the image, or the image no longer places it here).
      cleaner.forget(log);
      log.closeHandlers();
      return;
    }
    checkpointRecoveryPointsAndLogStartOffsets();
    checkpointCleanerOffsets();
    cleaner.forget(log);
    Path doomed = log.renameForDeletion();
    deletionExecutor.execute(
        () -> {
          try {
            FileIo.deleteRecursively(doomed);
          } catch (IOException e) {
            LOG.log(Level.WARNING, "could not delete " + doomed + "; the next start removes it", e);
          }
        });
  }

  public Collection<PartitionLog> allLogs() {
    return List.copyOf(logs.values());
  }

  /**
   * The high watermarks last checkpointed ({@link #REPLICATION_OFFSET_CHECKPOINT}); empty if there
   * is none or it is unreadable (the high watermarks then start at each log's start, as before any
   * checkpoint, and catch up with the leaders).
   */
  public Map<TopicPartition, Long> highWatermarkCheckpoint() {
    return readCheckpoint(highWatermarkCheckpoint);
  }

  /**
   * Writes {@link #REPLICATION_OFFSET_CHECKPOINT} atomically; nothing while the directory is
   * offline.
   */
  public void checkpointHighWatermarks(Map<TopicPartition, Long> highWatermarks) {
    if (isOffline()) {
      return;
    }
    synchronized (checkpointLock) {
      try {
        highWatermarkCheckpoint.write(highWatermarks);
      } catch (IOException | LogStorageException e) {
        throw storageError("writing the high watermark checkpoint in " + dataDir, e);
      }
    }
  }

  /** Writes both checkpoint files for every open log; nothing while the directory is offline. */
  public void checkpointRecoveryPointsAndLogStartOffsets() {
    if (isOffline()) {
      return;
    }
    Map<TopicPartition, Long> recoveryPoints = new HashMap<>();
    Map<TopicPartition, Long> logStartOffsets = new HashMap<>();
    for (PartitionLog log : logs.values()) {
      recoveryPoints.put(log.topicPartition(), log.recoveryPoint());
      logStartOffsets.put(log.topicPartition(), log.logStartOffset());
    }
    synchronized (checkpointLock) {
      try {
        recoveryPointCheckpoint.write(recoveryPoints);
        logStartOffsetCheckpoint.write(logStartOffsets);
      } catch (IOException | LogStorageException e) {
        throw storageError("writing the checkpoints in " + dataDir, e);
      }
    }
  }

  /**
   * Writes {@code cleaner-offset-checkpoint}: the first dirty offset of every compacted log (a log
   * without an entry is cleaned from its start). A truncation lowers a log's value in memory at
   * once; this file catches up at the next periodic pass, which is why loading ignores it after a
   * crash.
   */
  public void checkpointCleanerOffsets() {
    if (isOffline()) {
      return;
    }
    Map<TopicPartition, Long> firstDirtyOffsets = new HashMap<>();
    for (PartitionLog log : logs.values()) {
      if (log.config().compact()) {
        firstDirtyOffsets.put(log.topicPartition(), log.cleaning().firstDirtyOffset());
      }
    }
    synchronized (checkpointLock) {
      try {
        cleanerOffsetCheckpoint.write(firstDirtyOffsets);
      } catch (IOException | LogStorageException e) {
        throw storageError("writing the cleaner checkpoint in " + dataDir, e);
      }
    }
  }

  /**
   * One round of background work: flush logs whose flush.ms has passed, apply retention, expire
   * idle producer ids, write the checkpoints. A failing log is logged and skipped so the others
   * still get their turn. Compaction is not done here but on the cleaner's own thread (see {@link
   * #startup}).
   */
  public void runPeriodicTasks() {
    if (isOffline()) {
      return; // every task writes
    }
    for (PartitionLog log : logs.values()) {
      try {
        log.maybeFlushByTime();
        log.deleteOldSegments();
        log.removeExpiredProducers();
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "periodic task failed for " + log.topicPartition(), e);
      }
    }
    checkpointRecoveryPointsAndLogStartOffsets();
    checkpointCleanerOffsets();
  }

  /**
   * Stops the cleaner (its pass in flight deletes its output), flushes and closes every log, writes
   * the checkpoints, then the clean shutdown marker (last). If the directory is offline, or goes
   * offline now, the logs' files are closed without writing anything more and no marker is written:
   * the next start recovers every log.
   */
  public void shutdown() {
    cleaner.shutdown();
    for (PartitionLog log : logs.values()) {
      try {
        log.close();
      } catch (LogStorageException e) {
        log.closeHandlers(); // it took the directory offline: the others close without flushing
      }
    }
    try {
      if (!isOffline()) {
        checkpointRecoveryPointsAndLogStartOffsets();
        checkpointCleanerOffsets();
        writeCleanShutdownMarker();
      }
    } catch (LogStorageException e) {
      // Reported: the directory is offline now. A shutdown still completes; recovery runs next.
    }
    if (isOffline()) {
      LOG.log(
          Level.WARNING,
          "log directory {0} is offline: no clean shutdown marker; the next start recovers its"
              + " logs",
          dataDir);
    }
    logs.clear();
  }

  private void writeCleanShutdownMarker() {
    Path marker = dataDir.resolve(CLEAN_SHUTDOWN_FILE);
    try {
      Files.write(marker, new byte[0]);
      FileIo.fsyncDirectory(dataDir);
    } catch (IOException e) {
      try {
        Files.deleteIfExists(marker); // never claim a clean shutdown that did not finish
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw storageError("writing the clean shutdown marker in " + dataDir, e);
    }
  }
}
