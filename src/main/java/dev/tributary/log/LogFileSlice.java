package dev.tributary.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;

/**
 * The result of {@link PartitionLog#readFileSlice}: the same whole batches that {@link
 * PartitionLog#read} returns for the same arguments, left in the segment file ({@code sizeInBytes}
 * bytes of {@code channel} from {@code position}; Kafka's FileRecords slice), so that they can be
 * sent to a socket byte for byte with {@link FileChannel#transferTo} (zero-copy). With it come the
 * first batch's base offset and the log's offsets at the time of the read. It is found from the
 * offset index and batch headers only ({@link LogSegment#slice}), so unlike read it does not check
 * the framing of every batch it covers; neither checks CRCs (consumers do).
 *
 * <p>Invariant: the range holds zero or more whole, consecutive batches of one segment, as long as
 * the slice is not stale. It goes stale when the log is truncated or the cleaner swaps segments
 * after the read (the bytes at this position may then be other batches, or none), and its channel
 * is closed when the segment is deleted (retention, truncation, a swap, close): {@link #writeTo}
 * checks both and throws rather than send other bytes. Unlike {@link LogReadInfo} nothing is read
 * yet, so a caller should send a slice soon after the read and, on {@link StaleSliceException} or
 * {@link java.nio.channels.ClosedChannelException} before anything was sent, read again.
 */
public final class LogFileSlice {
  private final FileChannel channel;
  private final long position;
  private final int sizeInBytes;
  private final long firstOffset;

  /** The offset after the last batch in the slice; -1 when empty. */
  private final long nextOffset;

  private final long logStartOffset;
  private final long logEndOffset;

  /** The owning log's readers' sequence lock, and its value at the read (null and 0 if empty). */
  private final TruncationSequence truncations;

  private final long sequence;

  LogFileSlice(
      FileChannel channel,
      long position,
      int sizeInBytes,
      long firstOffset,
      long nextOffset,
      long logStartOffset,
      long logEndOffset,
      TruncationSequence truncations,
      long sequence) {
    if (sizeInBytes < 0 || position < 0) {
      throw new IllegalArgumentException("bad slice " + position + "+" + sizeInBytes);
    }
    this.channel = channel;
    this.position = position;
    this.sizeInBytes = sizeInBytes;
    this.firstOffset = firstOffset;
    this.nextOffset = nextOffset;
    this.logStartOffset = logStartOffset;
    this.logEndOffset = logEndOffset;
    this.truncations = truncations;
    this.sequence = sequence;
  }

  /** No batches (and no channel), with the log's offsets at the time of the read. */
  static LogFileSlice empty(long logStartOffset, long logEndOffset) {
    return new LogFileSlice(null, 0, 0, -1, -1, logStartOffset, logEndOffset, null, 0);
  }

  /**
   * The segment's log file, or null when empty. It belongs to the log: read it only with positional
   * reads or {@code transferTo}; never write, close or move its position.
   */
  public FileChannel channel() {
    return channel;
  }

  /** Where the first batch starts in the file. */
  public long position() {
    return position;
  }

  public int sizeInBytes() {
    return sizeInBytes;
  }

  public boolean isEmpty() {
    return sizeInBytes == 0;
  }

  /** Base offset of the first batch, or -1 when empty. */
  public long firstOffset() {
    return firstOffset;
  }

  /**
   * The offset after the slice's last batch, or -1 when empty: {@code nextOffset - fetchOffset}
   * records are in it, exactly so unless compaction left gaps.
   */
  public long nextOffset() {
    return nextOffset;
  }

  public long logStartOffset() {
    return logStartOffset;
  }

  /** The log end offset observed by the read (bytes past it are never in the slice). */
  public long logEndOffset() {
    return logEndOffset;
  }

  /**
   * Whether the log was truncated or its segments swapped since the read: the bytes in the range
   * may no longer be the batches read.
   */
  public boolean isStale() {
    return truncations != null && truncations.sequence() != sequence;
  }

  /**
   * Sends the slice's bytes from {@code offsetInSlice} on to {@code target} with one {@link
   * FileChannel#transferTo} call (zero-copy to a socket) and returns how many it took: all that
   * remain for a blocking target, possibly fewer (even 0) for a non-blocking one, which calls again
   * from where it got to.
   *
   * @throws StaleSliceException before sending anything if the slice {@link #isStale}, or after
   *     sending if it went stale meanwhile (what was sent may then be wrong: close the connection)
   * @throws java.nio.channels.ClosedChannelException if the segment was deleted since the read
   */
  public long writeTo(WritableByteChannel target, long offsetInSlice) throws IOException {
    if (offsetInSlice < 0 || offsetInSlice > sizeInBytes) {
      throw new IllegalArgumentException(
          "offset " + offsetInSlice + " outside a slice of " + sizeInBytes + " bytes");
    }
    if (offsetInSlice == sizeInBytes) {
      return 0;
    }
    checkNotStale("before sending");
    long sent = channel.transferTo(position + offsetInSlice, sizeInBytes - offsetInSlice, target);
    checkNotStale("while " + sent + " bytes were sent");
    return sent;
  }

  /**
   * How bytes leave the segment file for a connection that knows best how to send them (a TLS
   * connection encrypts through a buffer, a plaintext one uses {@link FileChannel#transferTo}).
   */
  @FunctionalInterface
  public interface FileTransfer {
    /** Sends up to {@code count} bytes of {@code file} from {@code position}; returns how many. */
    long transfer(FileChannel file, long position, long count) throws IOException;
  }

  /**
   * {@link #writeTo(WritableByteChannel, long)} through {@code transfer}: up to {@code count} bytes
   * from {@code offsetInSlice}, with the same staleness checks.
   */
  public long writeTo(long offsetInSlice, long count, FileTransfer transfer) throws IOException {
    if (offsetInSlice < 0 || count < 0 || offsetInSlice + count > sizeInBytes) {
      throw new IllegalArgumentException(
          count + " bytes from " + offsetInSlice + " outside a slice of " + sizeInBytes + " bytes");
    }
    if (count == 0) {
      return 0;
    }
    checkNotStale("before sending");
    long sent = transfer.transfer(channel, position + offsetInSlice, count);
    checkNotStale("while " + sent + " bytes were sent");
    return sent;
  }

  /**
   * Sends all of the slice to a blocking {@code target} ({@link #writeTo} until done) and returns
   * the bytes sent.
   */
  public long transferTo(WritableByteChannel target) throws IOException {
    long sent = 0;
    while (sent < sizeInBytes) {
      sent += writeTo(target, sent);
    }
    return sent;
  }

  private void checkNotStale(String when) throws StaleSliceException {
    if (isStale()) {
      throw new StaleSliceException(
          "the log was truncated or its segments swapped " + when + "; read again");
    }
  }

  /** The log changed under a {@link LogFileSlice}: its range may hold other bytes. */
  public static final class StaleSliceException extends IOException {
    StaleSliceException(String message) {
      super(message);
    }
  }

  @Override
  public String toString() {
    return "LogFileSlice(position="
        + position
        + ", bytes="
        + sizeInBytes
        + ", firstOffset="
        + firstOffset
        + ", nextOffset="
        + nextOffset
        + ", logStartOffset="
        + logStartOffset
        + ", logEndOffset="
        + logEndOffset
        + ")";
  }
}
