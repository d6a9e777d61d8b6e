package dev.tributary.log;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Loads a partition directory into segments, recovering it after an unclean shutdown (Kafka's
 * LogLoader); {@link #open} then has the log rebuild its epoch cache and producer state from them.
 *
 * <ol>
 *   <li>Deletes leftover temp files: {@code *.deleted} (a segment deletion interrupted by a crash),
 *       {@code *.tmp}, and {@code *.cleaned} (cleaner output not yet ready to swap in), with any
 *       {@code *.swap} file at or above the lowest {@code .cleaned} base offset (a rename from
 *       {@code .cleaned} to {@code .swap} that did not finish; Kafka's rule).
 *   <li>Completes every remaining swap ({@link LogCleaning#replaceSegments} got past its commit
 *       point, the rename of the {@code .log} to {@code .log.swap}): the segments whose base offset
 *       lies in [swap base, max(swap base + 1, swap next offset)) are the ones it replaces and are
 *       deleted, the swap file is renamed to its {@code .log} name, and its index files are dropped
 *       so they are rebuilt. A replaced segment whose records were all removed lies past the swap's
 *       next offset and may survive this; it holds only records the cleaner found superseded, so
 *       the log reads the same, and the next pass removes them again.
 *   <li>Deletes index files whose {@code .log} is gone.
 *   <li>Opens every {@code <20-digit offset>.log} in offset order. A missing index or time index,
 *       or one failing its sanity check, is rebuilt by recovering that segment.
 *   <li>Unclean shutdown: every segment from the one holding the recovery point on is recovered:
 *       each batch's framing, CRC and offset order is checked, indexes are rebuilt, and the file is
 *       truncated at the first bad byte; all later segments are then deleted. Recovered segments
 *       are fsynced, so the recovery point becomes the log end offset.
 *   <li>Clean shutdown or below the recovery point: the file is trusted; only the tail after the
 *       last index entry is scanned to find the next offset (and recovered if its framing is off).
 * </ol>
 */
final class LogLoader {
  private static final System.Logger LOG = System.getLogger(LogLoader.class.getName());

  private LogLoader() {}

  /**
   * The loaded state. Invariant: first segment base <= logStartOffset <= recoveryPoint <=
   * logEndOffset.
   */
  record Loaded(
      TreeMap<Long, LogSegment> segments,
      long logStartOffset,
      long logEndOffset,
      long recoveryPoint) {}

  /**
   * Opens the log in {@code dir} (see {@link PartitionLog#open(Path,
   * dev.tributary.common.TopicPartition, LogConfig, long, long, boolean,
   * dev.tributary.common.Time)}), reporting I/O failures to {@code failures} (the {@link
   * LogManager}'s channel), its writes and fsyncs slowed by {@code disk} (the broker's, see {@link
   * SlowDisk}): loads the segments, then brings the log's epoch cache in line with them and
   * rebuilds its producer state ({@link ProducerStateManager#recover}). A log in an offline
   * directory is not opened.
   *
   * @throws KafkaStorageException if the directory is offline, or loading hit an I/O error (which
   *     takes it offline)
   */
  static PartitionLog open(
      Path dir,
      dev.tributary.common.TopicPartition tp,
      LogConfig config,
      long recoveryPoint,
      long logStartOffset,
      boolean hadCleanShutdown,
      dev.tributary.common.Time time,
      LogDirFailureChannel failures,
      SlowDisk disk) {
    Path logDir = dir.toAbsolutePath().getParent();
    if (failures.isOffline(logDir)) {
      throw LogLock.offline(failures, logDir, "opening " + tp);
    }
    try {
      Loaded loaded = load(dir, config, recoveryPoint, logStartOffset, hadCleanShutdown);
      LeaderEpochCache epochs = LeaderEpochCache.load(dir);
      ProducerStateManager producers = ProducerStateManager.open(dir, tp);
      PartitionLog log =
          new PartitionLog(dir, tp, config, time, loaded, epochs, producers, failures, disk);
      // Not published yet: nothing else can touch the log while these read it.
      long start = log.logStartOffset();
      long end = log.logEndOffset();
      epochs.reconcile(start, end, log::readBatches);
      producers.recover(
          log.segmentBaseOffsets(),
          start,
          end,
          hadCleanShutdown,
          time.milliseconds(),
          config.producerIdExpirationMs(),
          log::readBatches);
      return log;
    } catch (IOException | LogStorageException e) {
      if (e instanceof KafkaStorageException k) {
        throw k;
      }
      String what = "loading log " + tp + " from " + dir;
      failures.maybeAddOfflineLogDir(logDir, what, e);
      throw new KafkaStorageException(what + " failed; log directory " + logDir + " is offline", e);
    }
  }

  static Loaded load(
      Path dir, LogConfig config, long recoveryPoint, long logStartOffset, boolean hadCleanShutdown)
      throws IOException {
    Files.createDirectories(dir);
    TreeMap<Long, Path> logFiles = removeTempFilesAndListLogs(dir);
    TreeMap<Long, LogSegment> segments = new TreeMap<>();
    Long recoverFrom = hadCleanShutdown ? null : floorOrFirst(logFiles, recoveryPoint);
    boolean recovered = false;
    long previousNextOffset = -1;
    for (Map.Entry<Long, Path> entry : logFiles.entrySet()) {
      long baseOffset = entry.getKey();
      if (previousNextOffset > baseOffset) {
        // The previous segment runs past this one's base: offsets would go backwards. Drop the
        // rest.
        LOG.log(
            Level.WARNING,
            "segment {0} overlaps its predecessor; deleting it and later segments",
            entry.getValue());
        deleteSegmentFilesFrom(dir, logFiles.tailMap(baseOffset, true).keySet());
        break;
      }
      String name = LogSegment.fileName(baseOffset);
      boolean indexesPresent =
          Files.exists(dir.resolve(name + LogSegment.INDEX_SUFFIX))
              && Files.exists(dir.resolve(name + LogSegment.TIME_INDEX_SUFFIX));
      LogSegment segment = LogSegment.open(dir, baseOffset, config);
      boolean mustRecover = recoverFrom != null && baseOffset >= recoverFrom;
      if (!mustRecover) {
        mustRecover = !indexesPresent || !indexesSane(segment) || !segment.loadTailState();
        if (mustRecover) {
          LOG.log(Level.WARNING, "rebuilding indexes of {0}", segment.logFile());
        }
      }
      segments.put(baseOffset, segment);
      if (mustRecover) {
        recovered = true;
        int truncated = segment.recover(previousNextOffset);
        if (truncated > 0) {
          LOG.log(
              Level.WARNING,
              "recovery truncated {0} invalid bytes from {1}; deleting later segments",
              truncated,
              segment.logFile());
          deleteSegmentFilesFrom(dir, logFiles.tailMap(baseOffset, false).keySet());
          break;
        }
      }
      previousNextOffset = segment.nextOffset();
    }
    if (segments.isEmpty()) {
      long start = Math.max(0, logStartOffset);
      segments.put(start, LogSegment.create(dir, start, config));
    }
    long logEndOffset = segments.lastEntry().getValue().nextOffset();
    if (logStartOffset > logEndOffset) {
      // The checkpointed start is past the data we have (data lost, or deleted records): start over
      // there.
      for (LogSegment segment : segments.values()) {
        segment.deleteFiles();
      }
      segments.clear();
      segments.put(logStartOffset, LogSegment.create(dir, logStartOffset, config));
      logEndOffset = logStartOffset;
    }
    long start = Math.max(logStartOffset, segments.firstKey());
    if (recovered) {
      for (LogSegment segment : segments.values()) {
        segment.flush();
      }
      FileIo.fsyncDirectory(dir);
      recoveryPoint = logEndOffset;
    }
    return new Loaded(
        segments, start, logEndOffset, Math.max(start, Math.min(recoveryPoint, logEndOffset)));
  }

  private static boolean indexesSane(LogSegment segment) {
    try {
      segment.offsetIndex().sanityCheck(segment.size());
      segment.timeIndex().sanityCheck();
      return true;
    } catch (IllegalStateException e) {
      LOG.log(Level.WARNING, "corrupt index: {0}", e.getMessage());
      return false;
    }
  }

  private static Long floorOrFirst(TreeMap<Long, Path> logFiles, long offset) {
    Long floor = logFiles.floorKey(offset);
    return floor != null ? floor : (logFiles.isEmpty() ? null : logFiles.firstKey());
  }

  private static TreeMap<Long, Path> removeTempFilesAndListLogs(Path dir) throws IOException {
    TreeMap<Long, Path> logs = new TreeMap<>();
    List<Path> indexFiles = new ArrayList<>();
    List<Path> swapFiles = new ArrayList<>();
    long minCleanedBaseOffset = Long.MAX_VALUE;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        if (name.endsWith(LogSegment.DELETED_SUFFIX) || name.endsWith(".tmp")) {
          LOG.log(Level.INFO, "deleting leftover temp file {0}", file);
          Files.deleteIfExists(file);
        } else if (name.endsWith(LogSegment.CLEANED_SUFFIX)) {
          LOG.log(Level.INFO, "deleting unfinished cleaner output {0}", file);
          Files.deleteIfExists(file);
          Long base = baseOffsetOf(name);
          if (base != null) {
            minCleanedBaseOffset = Math.min(minCleanedBaseOffset, base);
          }
        } else if (name.endsWith(LogSegment.SWAP_SUFFIX)) {
          swapFiles.add(file);
        } else if (name.endsWith(LogSegment.LOG_SUFFIX)) {
          Long offset = parseOffset(name, LogSegment.LOG_SUFFIX);
          if (offset == null) {
            LOG.log(Level.WARNING, "ignoring unexpected file {0}", file);
          } else {
            logs.put(offset, file);
          }
        } else if (name.endsWith(LogSegment.INDEX_SUFFIX)
            || name.endsWith(LogSegment.TIME_INDEX_SUFFIX)) {
          indexFiles.add(file);
        }
      }
    }
    TreeMap<Long, Path> swapLogs = new TreeMap<>();
    for (Path swap : swapFiles) {
      String name = swap.getFileName().toString();
      Long base = baseOffsetOf(name);
      if (base == null
          || base >= minCleanedBaseOffset
          || !name.startsWith(LogSegment.fileName(base) + LogSegment.LOG_SUFFIX)) {
        // An index swap file (rebuilt instead), or part of a rename that did not finish.
        Files.deleteIfExists(swap);
      } else {
        swapLogs.put(base, swap);
      }
    }
    for (Map.Entry<Long, Path> swap : swapLogs.entrySet()) {
      completeSwap(dir, swap.getKey(), swap.getValue(), logs);
    }
    if (!swapFiles.isEmpty() || minCleanedBaseOffset != Long.MAX_VALUE) {
      FileIo.fsyncDirectory(dir);
    }
    for (Path index : indexFiles) {
      String name = index.getFileName().toString();
      String base = name.substring(0, name.lastIndexOf('.'));
      if (!Files.exists(dir.resolve(base + LogSegment.LOG_SUFFIX))) {
        LOG.log(Level.INFO, "deleting orphan index {0}", index);
        Files.deleteIfExists(index);
      }
    }
    return logs;
  }

  /**
   * Finishes a segment swap that a crash interrupted after its commit point (see the class doc);
   * idempotent, so a crash in here is completed by the next load.
   */
  private static void completeSwap(Path dir, long base, Path swapLog, TreeMap<Long, Path> logs)
      throws IOException {
    long end = Math.max(base + 1, nextOffsetOf(swapLog, base));
    List<Long> replaced = new ArrayList<>(logs.subMap(base, true, end, false).keySet());
    LOG.log(
        Level.INFO,
        "completing the interrupted swap of {0}: replacing segments {1}",
        swapLog,
        replaced);
    deleteSegmentFilesFrom(dir, replaced);
    deleteSegmentFilesFrom(dir, List.of(base)); // indexes of a log file already renamed away
    replaced.forEach(logs::remove);
    Path target = dir.resolve(LogSegment.fileName(base) + LogSegment.LOG_SUFFIX);
    Files.move(swapLog, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    logs.put(base, target);
  }

  /**
   * The offset after the last whole batch of a swap file (fsynced before it was renamed {@code
   * .swap}, so its headers can be trusted), or {@code base} when it holds none.
   */
  private static long nextOffsetOf(Path logFile, long base) throws IOException {
    long next = base;
    try (java.nio.channels.FileChannel channel =
        java.nio.channels.FileChannel.open(logFile, java.nio.file.StandardOpenOption.READ)) {
      long size = channel.size();
      long position = 0;
      while (size - position >= dev.tributary.log.record.RecordBatch.HEADER_SIZE) {
        dev.tributary.log.record.RecordBatch header =
            new dev.tributary.log.record.RecordBatch(
                FileIo.readFully(
                    channel, position, dev.tributary.log.record.RecordBatch.HEADER_SIZE),
                0);
        if (header.sizeInBytes() < dev.tributary.log.record.RecordBatch.HEADER_SIZE
            || position + header.sizeInBytes() > size) {
          break;
        }
        next = header.nextOffset();
        position += header.sizeInBytes();
      }
    }
    return next;
  }

  /** The 20-digit base offset a segment file name starts with, or null. */
  private static Long baseOffsetOf(String name) {
    if (name.length() < 20 || !name.substring(0, 20).chars().allMatch(Character::isDigit)) {
      return null;
    }
    return Long.parseLong(name.substring(0, 20));
  }

  private static Long parseOffset(String name, String suffix) {
    String digits = name.substring(0, name.length() - suffix.length());
    if (digits.length() != 20 || !digits.chars().allMatch(Character::isDigit)) {
      return null;
    }
    return Long.parseLong(digits);
  }

  private static void deleteSegmentFilesFrom(Path dir, Collection<Long> baseOffsets)
      throws IOException {
    for (long baseOffset : new ArrayList<>(baseOffsets)) {
      String name = LogSegment.fileName(baseOffset);
      for (String suffix :
          new String[] {
            LogSegment.LOG_SUFFIX, LogSegment.INDEX_SUFFIX, LogSegment.TIME_INDEX_SUFFIX
          }) {
        Files.deleteIfExists(dir.resolve(name + suffix));
      }
    }
  }
}
