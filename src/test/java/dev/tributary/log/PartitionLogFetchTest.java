package dev.tributary.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fetch path's helpers: {@link PartitionLog#estimatedBytesBetween} against the exact sizes of
 * the appended batches, and {@link PartitionLog#readFileSlice} against {@link PartitionLog#read}.
 */
class PartitionLogFetchTest {
  static final TopicPartition TP = new TopicPartition("fetch", 0);
  static final long T0 = 1_700_000_000_000L;

  @TempDir Path dir;
  final ManualTime time = new ManualTime(T0);
  PartitionLog log;

  /** A batch as stored: its offsets and size. */
  record Stored(long baseOffset, long lastOffset, int sizeInBytes) {}

  @AfterEach
  void closeLog() {
    if (log != null) {
      log.close();
    }
  }

  void open(Map<String, String> overrides) {
    log =
        PartitionLog.open(
            dir.resolve(TP.dirName()), TP, LogConfig.fromMap(overrides), 0, true, time);
  }

  /** Appends {@code n} batches of 1 to 4 records with values of varied sizes. */
  List<Stored> append(int n, int maxValueBytes) {
    List<Stored> stored = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ByteBuffer batch =
          TestBatches.batch(1 + i % 4, time.milliseconds(), (i * 37) % maxValueBytes);
      LogAppendInfo info = log.appendAsLeader(batch, 0);
      stored.add(new Stored(info.firstOffset(), info.lastOffset(), batch.remaining()));
    }
    return stored;
  }

  /** The bytes of the batches holding offsets in [from, to). */
  static long exactBytes(List<Stored> stored, long from, long to) {
    return stored.stream()
        .filter(b -> b.lastOffset() >= from && b.baseOffset() < to)
        .mapToLong(Stored::sizeInBytes)
        .sum();
  }

  @Test
  void estimateIsExactWhenEveryBatchIsIndexed() {
    open(Map.of(LogConfig.SEGMENT_BYTES, "4096", LogConfig.INDEX_INTERVAL_BYTES, "0"));
    List<Stored> stored = append(60, 200);
    long end = log.logEndOffset();
    assertThat(log.numberOfSegments()).isGreaterThan(2);

    for (long from = 0; from < end; from++) {
      for (long to = from + 1; to <= end; to++) {
        assertThat(log.estimatedBytesBetween(from, to))
            .as("[%d, %d)", from, to)
            .isEqualTo(exactBytes(stored, from, to));
      }
    }
  }

  @Test
  void estimateWithASparseIndexNeverUnderCountsAndOverCountsByLessThanAnIntervalAtEachEnd() {
    int intervalBytes = 1024;
    open(
        Map.of(
            LogConfig.SEGMENT_BYTES,
            "8192",
            LogConfig.INDEX_INTERVAL_BYTES,
            String.valueOf(intervalBytes)));
    List<Stored> stored = append(150, 250);
    long end = log.logEndOffset();
    int maxBatchBytes = stored.stream().mapToInt(Stored::sizeInBytes).max().orElseThrow();
    assertThat(log.numberOfSegments()).isGreaterThan(2);

    boolean overCounted = false;
    for (long from = 0; from < end; from += 3) {
      for (long to = from + 1; to <= end; to += 2) {
        long exact = exactBytes(stored, from, to);
        long estimate = log.estimatedBytesBetween(from, to);
        assertThat(estimate)
            .as("[%d, %d)", from, to)
            .isBetween(exact, exact + 2L * (intervalBytes + maxBatchBytes));
        overCounted |= estimate > exact;
      }
      // The log end and segment boundaries are exact.
      assertThat(log.estimatedBytesBetween(from, end)).isLessThanOrEqualTo(log.size());
    }
    assertThat(overCounted).as("the index is sparse enough to matter").isTrue();
    for (long base : log.segmentBaseOffsets().subList(1, log.numberOfSegments())) {
      assertThat(log.estimatedBytesBetween(0, base)).isEqualTo(exactBytes(stored, 0, base));
    }
  }

  @Test
  void estimateIsZeroForAnEmptyRangeAndClampsToTheLog() {
    open(Map.of(LogConfig.SEGMENT_BYTES, "2048"));
    assertThat(log.estimatedBytesBetween(0, 10)).as("empty log").isZero();
    List<Stored> stored = append(40, 200);
    long end = log.logEndOffset();

    assertThat(log.estimatedBytesBetween(5, 5)).isZero();
    assertThat(log.estimatedBytesBetween(9, 5)).isZero();
    assertThat(log.estimatedBytesBetween(end, end + 100)).isZero();
    assertThat(log.estimatedBytesBetween(0, Long.MAX_VALUE)).isEqualTo(log.size());

    long newStart = log.segmentBaseOffsets().get(2);
    log.maybeIncrementLogStartOffset(newStart);
    log.deleteOldSegments();
    assertThat(log.logStartOffset()).isEqualTo(newStart);
    assertThat(log.estimatedBytesBetween(0, newStart)).as("wholly below the start").isZero();
    assertThat(log.estimatedBytesBetween(0, Long.MAX_VALUE))
        .isEqualTo(log.size())
        .isEqualTo(exactBytes(stored, newStart, end));
  }

  /** The offset after the last batch in {@code batches}. */
  private static long nextOffsetAfter(ByteBuffer batches) {
    long next = -1;
    for (int at = batches.position(); at < batches.limit(); ) {
      dev.tributary.log.record.RecordBatch batch =
          new dev.tributary.log.record.RecordBatch(batches, at);
      next = batch.lastOffset() + 1;
      at += batch.sizeInBytes();
    }
    return next;
  }

  /** The bytes of {@code slice}, read from its channel without moving the channel's position. */
  static ByteBuffer bytesOf(LogFileSlice slice) throws IOException {
    ByteBuffer bytes = ByteBuffer.allocate(slice.sizeInBytes());
    while (bytes.hasRemaining()) {
      if (slice.channel().read(bytes, slice.position() + bytes.position()) < 0) {
        break;
      }
    }
    return bytes.flip();
  }

  /**
   * Every batch indexed, a few, or none: the header scan then starts at an indexed batch or reads
   * several {@link BatchHeaders#WINDOW_BYTES} windows of one segment.
   */
  @ParameterizedTest
  @ValueSource(strings = {"0", "512", "1048576"})
  void fileSliceHoldsExactlyTheBatchesReadReturnsForTheSameArguments(String indexIntervalBytes)
      throws IOException {
    open(
        Map.of(
            LogConfig.SEGMENT_BYTES, "32768", LogConfig.INDEX_INTERVAL_BYTES, indexIntervalBytes));
    append(400, 60);
    long end = log.logEndOffset();
    assertThat(log.size()).isGreaterThan(3L * BatchHeaders.WINDOW_BYTES);
    assertThat(log.numberOfSegments()).isGreaterThan(1);

    int nonEmpty = 0;
    for (long start = 0; start <= end; start += 5) {
      for (int maxBytes : new int[] {1, 150, 1000, 9000, 40000}) {
        for (long maxOffset : new long[] {end, end / 2, start + 3}) {
          for (boolean minOneBatch : new boolean[] {true, false}) {
            String what = "%d %d %d %b".formatted(start, maxBytes, maxOffset, minOneBatch);
            LogReadInfo read = log.read(start, maxBytes, maxOffset, minOneBatch);
            LogFileSlice slice = log.readFileSlice(start, maxBytes, maxOffset, minOneBatch);
            assertThat(slice.sizeInBytes()).as(what).isEqualTo(read.sizeInBytes());
            assertThat(slice.firstOffset()).as(what).isEqualTo(read.firstOffset());
            assertThat(slice.logStartOffset()).isEqualTo(read.logStartOffset());
            assertThat(slice.logEndOffset()).isEqualTo(read.logEndOffset());
            if (slice.isEmpty()) {
              assertThat(slice.channel()).isNull();
              continue;
            }
            nonEmpty++;
            assertThat(bytesOf(slice)).as(what).isEqualTo(read.records());
            assertThat(slice.nextOffset()).as(what).isEqualTo(nextOffsetAfter(read.records()));
          }
        }
      }
    }
    assertThat(nonEmpty).isGreaterThan(1000);
    assertThatThrownBy(() -> log.readFileSlice(end + 1, 100, Long.MAX_VALUE, true))
        .isInstanceOf(OffsetOutOfRangeException.class);
  }

  @Test
  void transferToSendsTheStoredBatchesByteForByte() throws IOException {
    open(Map.of());
    append(30, 300);
    LogReadInfo read = log.read(7, 3000, Long.MAX_VALUE, false);
    LogFileSlice slice = log.readFileSlice(7, 3000, Long.MAX_VALUE, false);
    assertThat(slice.sizeInBytes()).isGreaterThan(1000);

    // To a file: FileChannel.transferTo's zero-copy path, as to a socket.
    Path copy = dir.resolve("copy");
    try (FileChannel target =
        FileChannel.open(copy, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      assertThat(slice.transferTo(target)).isEqualTo(slice.sizeInBytes());
    }
    assertThat(ByteBuffer.wrap(Files.readAllBytes(copy))).isEqualTo(read.records());

    // In two parts, as a non-blocking sender resumes from where it got to.
    ByteArrayOutputStream sent = new ByteArrayOutputStream();
    int half = slice.sizeInBytes() / 2;
    long first = slice.writeTo(new FullingChannel(sent, half), 0);
    assertThat(first).isEqualTo(half);
    long rest = slice.writeTo(Channels.newChannel(sent), first);
    assertThat(first + rest).isEqualTo(slice.sizeInBytes());
    assertThat(slice.writeTo(Channels.newChannel(sent), slice.sizeInBytes())).isZero();
    assertThat(ByteBuffer.wrap(sent.toByteArray())).isEqualTo(read.records());

    // Through a transfer of the caller's (a TLS connection's), in parts, from any position.
    ByteArrayOutputStream transferred = new ByteArrayOutputStream();
    LogFileSlice.FileTransfer transfer =
        (file, position, count) -> {
          long take = Math.min(count, 100);
          ByteBuffer part = ByteBuffer.allocate((int) take);
          file.read(part, position);
          transferred.write(part.array(), 0, part.position());
          return part.position();
        };
    long done = 0;
    while (done < slice.sizeInBytes()) {
      done += slice.writeTo(done, slice.sizeInBytes() - done, transfer);
    }
    assertThat(ByteBuffer.wrap(transferred.toByteArray())).isEqualTo(read.records());
    assertThatThrownBy(() -> slice.writeTo(10, slice.sizeInBytes(), transfer))
        .isInstanceOf(IllegalArgumentException.class);

    LogFileSlice empty = log.readFileSlice(log.logEndOffset(), 3000, Long.MAX_VALUE, true);
    assertThat(empty.isEmpty()).isTrue();
    assertThat(empty.firstOffset()).isEqualTo(-1);
    assertThat(empty.transferTo(Channels.newChannel(sent))).isZero();
  }

  @Test
  void aSliceGoesStaleWhenTheLogIsTruncatedAndFailsWhenItsSegmentIsDeleted() throws IOException {
    open(Map.of(LogConfig.SEGMENT_BYTES, "2048"));
    List<Stored> stored = append(40, 200);
    ByteArrayOutputStream sent = new ByteArrayOutputStream();

    long lastBase = log.segmentBaseOffsets().get(log.numberOfSegments() - 1);
    LogFileSlice beforeTruncation = log.readFileSlice(lastBase, 1 << 20, Long.MAX_VALUE, true);
    assertThat(beforeTruncation.isStale()).isFalse();
    long lastBatch = stored.get(stored.size() - 1).baseOffset();
    assertThat(lastBatch)
        .as("the truncation keeps the slice's first batches")
        .isGreaterThan(lastBase);
    log.truncateTo(lastBatch);
    assertThat(beforeTruncation.isStale()).isTrue();
    assertThatThrownBy(() -> beforeTruncation.transferTo(Channels.newChannel(sent)))
        .isInstanceOf(LogFileSlice.StaleSliceException.class);
    assertThat(sent.size()).as("nothing sent").isZero();

    LogFileSlice afterTruncation = log.readFileSlice(lastBase, 1 << 20, Long.MAX_VALUE, true);
    assertThat(afterTruncation.transferTo(Channels.newChannel(sent)))
        .isEqualTo(log.read(lastBase, 1 << 20, Long.MAX_VALUE, true).sizeInBytes());

    LogFileSlice oldest = log.readFileSlice(0, 1 << 20, Long.MAX_VALUE, true);
    log.maybeIncrementLogStartOffset(log.segmentBaseOffsets().get(1));
    assertThat(log.deleteOldSegments()).isEqualTo(1);
    assertThat(oldest.isStale()).as("retention changes no stored bytes").isFalse();
    assertThatThrownBy(() -> oldest.transferTo(Channels.newChannel(sent)))
        .isInstanceOf(ClosedChannelException.class);
  }

  /** Takes at most {@code room} bytes in all, then none: a socket whose buffer is full. */
  private static final class FullingChannel implements WritableByteChannel {
    private final ByteArrayOutputStream target;
    private int room;

    FullingChannel(ByteArrayOutputStream target, int room) {
      this.target = target;
      this.room = room;
    }

    @Override
    public int write(ByteBuffer src) {
      int n = Math.min(src.remaining(), room);
      byte[] bytes = new byte[n];
      src.get(bytes);
      target.write(bytes, 0, n);
      room -= n;
      return n;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }
}
