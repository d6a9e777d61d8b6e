package dev.tributary.log;

import dev.tributary.common.TopicPartition;
import dev.tributary.log.record.RecordBatch;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongFunction;
import java.util.function.LongPredicate;

/**
 * The idempotent producers of one partition log (Kafka's ProducerStateManager, without
 * transactions): per producer id, its epoch and its last five batches ({@link ProducerStateEntry}),
 * so that the leader recognises a retried batch and refuses one out of order. See
 * docs/adr/0018-idempotent-producers.md.
 *
 * <p>Rules for a leader append (Kafka 4's, for a client's non-transactional batches; KIP-98 and
 * KIP-360). Each batch with a producer id is checked in request order against the producer's state
 * before the append, then against the request's earlier batches of the same producer:
 *
 * <ol>
 *   <li><b>Duplicate</b>: a batch of the producer's current epoch whose sequence range is exactly
 *       one of the five cached batches' is a retry of it. The request appends nothing and is
 *       answered with that batch's offsets and error NONE.
 *   <li><b>Fenced</b>: an epoch older than the producer's is INVALID_PRODUCER_EPOCH.
 *   <li><b>New epoch</b>: a newer epoch must start at sequence 0 (OUT_OF_ORDER_SEQUENCE_NUMBER
 *       otherwise); its batches replace the older epoch's.
 *   <li><b>Unknown producer</b>: a producer id the log has no state for (never seen, expired, or
 *       its batches were deleted before the state was built) is accepted at any sequence. KIP-360
 *       removed UNKNOWN_PRODUCER_ID from produce for this: a producer whose state went must be able
 *       to go on, and an idempotent producer resets its own sequence when it needs to.
 *   <li><b>Same epoch</b>: the first sequence must follow the last one appended ({@code last + 1},
 *       or 0 after {@code Integer.MAX_VALUE}); anything else (a gap, or an old batch no longer
 *       cached) is OUT_OF_ORDER_SEQUENCE_NUMBER.
 * </ol>
 *
 * A refused batch refuses the partition's whole request; nothing is appended. A follower appends
 * what its leader has, unchecked, and takes each batch's epoch and sequence as they are (Kafka's
 * REPLICATION origin), so a follower that becomes leader has the same state and answers retries of
 * batches its predecessor appended.
 *
 * <p>Invariant: the state is that of the log's batches below its log end offset (plus producers
 * whose batches retention deleted, until they expire): updated after each append, rebuilt after a
 * truncation ({@link #truncateAndReload}: from the latest snapshot at or below the new end, then
 * the batches after it), and at load ({@link #recover}).
 *
 * <p>Snapshots ({@link ProducerSnapshotFile}) are written at each segment roll (at the new
 * segment's base offset), at clean shutdown and after a rebuild, at the log end offset; they are
 * deleted when retention deletes the segments below them or a truncation goes below them. A
 * producer expires {@code producer.id.expiration.ms} after its last batch's timestamp ({@link
 * #removeExpiredProducers}).
 *
 * <p>Concurrency: guarded by the owning {@link PartitionLog}'s lock, except {@link
 * #producerIdCount}.
 */
final class ProducerStateManager {
  private static final System.Logger LOG = System.getLogger(ProducerStateManager.class.getName());

  private final Path dir;
  private final TopicPartition topicPartition;

  /** Producer id → state. Changed by {@link #update}, the rebuilds and expiry. */
  private final HashMap<Long, ProducerStateEntry> producers = new HashMap<>();

  /** {@code producers.size()}, for readers without the lock. */
  private volatile int producerIdCount;

  /** Snapshot files in the directory, by offset. */
  private final TreeMap<Long, Path> snapshots = new TreeMap<>();

  private ProducerStateManager(Path dir, TopicPartition topicPartition) {
    this.dir = dir;
    this.topicPartition = topicPartition;
  }

  /**
   * An empty state over the snapshot files in {@code dir} (none read yet: see {@link #recover}).
   */
  static ProducerStateManager open(Path dir, TopicPartition topicPartition) throws IOException {
    ProducerStateManager manager = new ProducerStateManager(dir, topicPartition);
    try (DirectoryStream<Path> files =
        Files.newDirectoryStream(dir, "*" + ProducerSnapshotFile.SUFFIX)) {
      for (Path file : files) {
        long offset = ProducerSnapshotFile.offsetOf(file);
        if (offset >= 0) {
          manager.snapshots.put(offset, file);
        }
      }
    }
    return manager;
  }

  // -------------------------------------------------------------------------------------------
  // appends

  /**
   * The producer batches of a leader append, checked (see the class doc): either the duplicate to
   * answer with, or the changes to apply once the batches are written.
   */
  record LeaderAppend(BatchMetadata duplicate, List<ProducerAppendInfo> producers) {}

  /**
   * Checks the batches in {@code records}, which will get offsets from {@code firstOffset}
   * (consecutive; a leader's batches number their records 0..n-1). Changes nothing.
   *
   * @param logAppendTimeMs the broker's time for a LogAppendTime topic (the batches' timestamp),
   *     else -1 (each batch's max timestamp)
   * @throws InvalidProducerEpochException a batch of an older epoch than its producer's
   * @throws OutOfOrderSequenceException a batch whose sequence does not follow
   */
  LeaderAppend checkLeaderAppend(ByteBuffer records, long firstOffset, long logAppendTimeMs) {
    List<ProducerAppendInfo> infos = new ArrayList<>(1);
    long offset = firstOffset;
    for (int at = records.position(); at < records.limit(); ) {
      RecordBatch batch = new RecordBatch(records, at);
      long lastOffset = offset + batch.lastOffsetDelta();
      if (batch.hasProducerId()) {
        long producerId = batch.producerId();
        short epoch = batch.producerEpoch();
        int firstSeq = batch.baseSequence();
        int lastSeq = batch.lastSequence();
        ProducerStateEntry current = producers.get(producerId);
        if (current != null) {
          BatchMetadata duplicate = current.findDuplicate(epoch, firstSeq, lastSeq);
          if (duplicate != null) {
            return new LeaderAppend(duplicate, List.of());
          }
        }
        long timestampMs = logAppendTimeMs >= 0 ? logAppendTimeMs : batch.maxTimestamp();
        infoFor(infos, producerId, current)
            .append(epoch, firstSeq, lastSeq, offset, lastOffset, timestampMs);
      }
      offset = lastOffset + 1;
      at += batch.sizeInBytes();
    }
    return new LeaderAppend(null, infos);
  }

  private ProducerAppendInfo infoFor(
      List<ProducerAppendInfo> infos, long producerId, ProducerStateEntry current) {
    for (ProducerAppendInfo info : infos) { // one producer per request, almost always
      if (info.producerId() == producerId) {
        return info;
      }
    }
    ProducerAppendInfo info =
        new ProducerAppendInfo(
            topicPartition, current != null ? current : ProducerStateEntry.empty(producerId));
    infos.add(info);
    return info;
  }

  /** Applies a checked leader append whose batches are now written. */
  void update(LeaderAppend append) {
    for (ProducerAppendInfo info : append.producers()) {
      ProducerStateEntry current = producers.get(info.producerId());
      if (current == null) {
        producers.put(info.producerId(), info.staged());
      } else {
        current.update(info.staged());
      }
    }
    producerIdCount = producers.size();
  }

  /**
   * Takes the producer batches of {@code records} as they are (a follower's append, or a replay of
   * the log), unchecked.
   */
  void updateReplicated(ByteBuffer records) {
    for (int at = records.position(); at < records.limit(); ) {
      RecordBatch batch = new RecordBatch(records, at);
      replay(batch);
      at += batch.sizeInBytes();
    }
    producerIdCount = producers.size();
  }

  private void replay(RecordBatch batch) {
    if (batch.hasProducerId()) {
      producers
          .computeIfAbsent(batch.producerId(), ProducerStateEntry::empty)
          .addBatch(
              batch.producerEpoch(),
              new BatchMetadata(
                  batch.baseSequence(),
                  batch.lastSequence(),
                  batch.baseOffset(),
                  batch.lastOffset(),
                  batch.maxTimestamp()));
    }
  }

  // -------------------------------------------------------------------------------------------
  // load, truncation, snapshots, expiry

  /**
   * Builds the state of a log just loaded: from the latest snapshot at or below its end and the
   * batches after it. A log without any snapshot that was shut down cleanly predates producer state
   * (a clean shutdown always leaves one) and is not read at all: it holds no producer batches.
   * Snapshots that belong to no segment are removed first, except one past the last segment's base
   * (a clean shutdown's, or a truncation's).
   *
   * @param readFrom reads whole batches from an offset (up to the log end)
   */
  void recover(
      Collection<Long> segmentBaseOffsets,
      long logStartOffset,
      long logEndOffset,
      boolean hadCleanShutdown,
      long nowMs,
      long expirationMs,
      LongFunction<LogReadInfo> readFrom)
      throws IOException {
    removeStraySnapshots(segmentBaseOffsets);
    boolean predatesProducerState = snapshots.isEmpty() && hadCleanShutdown;
    rebuild(logStartOffset, logEndOffset, !predatesProducerState, nowMs, expirationMs, readFrom);
  }

  /**
   * The log was truncated to [{@code logStartOffset}, {@code logEndOffset}): snapshots past the new
   * end go, and the state is rebuilt from the latest remaining one and the batches after it. A log
   * that had no producer before the truncation has none after it, and is not read (Kafka's shortcut
   * for logs no idempotent producer writes).
   */
  void truncateAndReload(
      long logStartOffset,
      long logEndOffset,
      long nowMs,
      long expirationMs,
      LongFunction<LogReadInfo> readFrom)
      throws IOException {
    rebuild(logStartOffset, logEndOffset, !producers.isEmpty(), nowMs, expirationMs, readFrom);
  }

  private void rebuild(
      long logStartOffset,
      long logEndOffset,
      boolean replay,
      long nowMs,
      long expirationMs,
      LongFunction<LogReadInfo> readFrom)
      throws IOException {
    deleteSnapshots(offset -> offset < logStartOffset || offset > logEndOffset);
    producers.clear();
    if (replay) {
      long from = loadLatestSnapshot(logStartOffset, nowMs, expirationMs);
      while (from < logEndOffset) {
        LogReadInfo read = readFrom.apply(from);
        if (read.isEmpty()) {
          break;
        }
        for (RecordBatch batch : read.batches()) {
          if (batch.baseOffset() >= from) { // a batch below is in the snapshot already
            replay(batch);
          }
          from = batch.nextOffset();
        }
      }
    }
    producerIdCount = producers.size();
    if (logEndOffset > logStartOffset) { // an empty log needs none to start from
      takeSnapshot(logEndOffset);
    }
  }

  /**
   * Loads the latest snapshot that reads back, dropping expired producers; corrupt ones are deleted
   * on the way. Returns the offset to replay batches from: the snapshot's, or the log start offset
   * without one.
   */
  private long loadLatestSnapshot(long logStartOffset, long nowMs, long expirationMs)
      throws IOException {
    while (!snapshots.isEmpty()) {
      Map.Entry<Long, Path> latest = snapshots.lastEntry();
      try {
        for (ProducerStateEntry entry : ProducerSnapshotFile.read(latest.getValue())) {
          if (!isExpired(entry, nowMs, expirationMs)) {
            producers.put(entry.producerId(), entry);
          }
        }
        return Math.max(latest.getKey(), logStartOffset);
      } catch (ProducerSnapshotFile.CorruptSnapshotException | NoSuchFileException e) {
        LOG.log(
            Level.WARNING,
            "ignoring producer snapshot {0} of {1}, rebuilding from the log instead: {2}",
            latest.getValue(),
            topicPartition,
            e.getMessage());
        producers.clear();
        deleteSnapshots(offset -> offset == latest.getKey());
      }
    }
    return logStartOffset;
  }

  /**
   * Writes a snapshot of the state as of {@code offset} (the log end offset), unless one is there,
   * without fsyncing it (as Kafka at a roll: a segment roll fsyncs the directory right after, and a
   * snapshot a power loss tore fails its CRC and is rebuilt from an older one and the log).
   */
  void takeSnapshot(long offset) throws IOException {
    if (!snapshots.containsKey(offset)) {
      writeSnapshot(offset, false);
    }
  }

  /**
   * Writes a snapshot as of {@code offset} and fsyncs it with its directory, even if one is there:
   * at clean shutdown, whose marker promises the next start this snapshot (a log without any is
   * taken to predate producer state, see {@link #recover}).
   */
  void takeDurableSnapshot(long offset) throws IOException {
    writeSnapshot(offset, true);
  }

  private void writeSnapshot(long offset, boolean durable) throws IOException {
    Path file = ProducerSnapshotFile.path(dir, offset);
    ProducerSnapshotFile.write(file, producers.values(), durable);
    snapshots.put(offset, file);
  }

  /** The log was emptied to start again: no producer, no snapshot. */
  void truncateFully() throws IOException {
    producers.clear();
    producerIdCount = 0;
    deleteSnapshots(offset -> true);
  }

  /** Retention deleted the segments below {@code offset}: their snapshots go too. */
  void deleteSnapshotsBelow(long offset) throws IOException {
    deleteSnapshots(snapshot -> snapshot < offset);
  }

  /**
   * Removes the producers whose last batch is {@code expirationMs} or more older than {@code nowMs}
   * (Kafka's {@code producer.id.expiration.ms}); returns how many.
   */
  int removeExpiredProducers(long nowMs, long expirationMs) {
    int before = producers.size();
    producers.values().removeIf(entry -> isExpired(entry, nowMs, expirationMs));
    producerIdCount = producers.size();
    return before - producerIdCount;
  }

  private static boolean isExpired(ProducerStateEntry entry, long nowMs, long expirationMs) {
    return nowMs - entry.lastTimestampMs() >= expirationMs;
  }

  /**
   * Deletes every snapshot that is not at a segment's base offset, except the latest one if it lies
   * past the last segment's base (Kafka's removeStraySnapshots).
   */
  private void removeStraySnapshots(Collection<Long> segmentBaseOffsets) throws IOException {
    Set<Long> bases = new HashSet<>(segmentBaseOffsets);
    long lastBase = bases.stream().mapToLong(Long::longValue).max().orElse(-1);
    Long latestStray =
        snapshots.descendingKeySet().stream()
            .filter(o -> !bases.contains(o))
            .findFirst()
            .orElse(null);
    long keep = latestStray != null && latestStray > lastBase ? latestStray : -1;
    deleteSnapshots(offset -> !bases.contains(offset) && offset != keep);
  }

  private void deleteSnapshots(LongPredicate which) throws IOException {
    for (Iterator<Map.Entry<Long, Path>> it = snapshots.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Long, Path> snapshot = it.next();
      if (which.test(snapshot.getKey())) {
        Path file = snapshot.getValue();
        it.remove();
        Files.deleteIfExists(file);
      }
    }
  }

  /** How many producer ids have state; readable without the lock. */
  int producerIdCount() {
    return producerIdCount;
  }

  /** Copies of every producer's state, by producer id. */
  Map<Long, ActiveProducer> activeProducers() {
    Map<Long, ActiveProducer> active = new TreeMap<>();
    producers.forEach((id, entry) -> active.put(id, entry.toActiveProducer()));
    return active;
  }
}
