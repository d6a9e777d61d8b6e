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
 * LogLoader).
 *
 * <ol>
 *   <li>Deletes leftover temp files: {@code *.deleted} (a segment deletion interrupted by a crash),
 *       {@code *.cleaned} and {@code *.swap} (compaction output, which Tributary never writes;
 *       Kafka would complete a swap, we have none to complete), {@code *.tmp}, and index files
 *       whose {@code .log} is gone.
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
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        if (name.endsWith(LogSegment.DELETED_SUFFIX)
            || name.endsWith(".cleaned")
            || name.endsWith(".swap")
            || name.endsWith(".tmp")) {
          LOG.log(Level.INFO, "deleting leftover temp file {0}", file);
          Files.deleteIfExists(file);
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
