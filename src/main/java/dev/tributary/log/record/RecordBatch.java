package dev.tributary.log.record;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A view over one record batch in Kafka's v2 format (magic 2), the unit Tributary stores,
 * replicates and serves.
 *
 * <pre>
 * offset  size  field                    offset  size  field
 *  0       8    baseOffset                35      8    maxTimestamp
 *  8       4    batchLength (bytes after) 43      8    producerId
 * 12       4    partitionLeaderEpoch      51      2    producerEpoch
 * 16       1    magic (= 2)               53      4    baseSequence
 * 17       4    crc (CRC32C of 21..end)   57      4    recordsCount
 * 21       2    attributes                61      ..   records (compressed as a whole if attributes say so)
 * 23       4    lastOffsetDelta
 * 27       8    baseTimestamp
 * </pre>
 *
 * <p>The base offset and the partition leader epoch sit outside the CRC, so the broker assigns
 * offsets and stamps the epoch in place without re-encoding or re-checksumming the batch, as Kafka
 * does.
 *
 * <p>Invariant: a view is created only over a buffer whose bytes [position, position + 61) exist;
 * {@link #validate()} checks everything else. The view reads the buffer with absolute gets and
 * never moves its position. Not thread-safe when mutated ({@link #setBaseOffset}, {@link
 * #setPartitionLeaderEpoch}).
 */
public final class RecordBatch {
  public static final int BASE_OFFSET_OFFSET = 0;
  public static final int LENGTH_OFFSET = 8;
  public static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
  public static final int MAGIC_OFFSET = 16;
  public static final int CRC_OFFSET = 17;
  public static final int ATTRIBUTES_OFFSET = 21;
  public static final int LAST_OFFSET_DELTA_OFFSET = 23;
  public static final int BASE_TIMESTAMP_OFFSET = 27;
  public static final int MAX_TIMESTAMP_OFFSET = 35;
  public static final int PRODUCER_ID_OFFSET = 43;
  public static final int PRODUCER_EPOCH_OFFSET = 51;
  public static final int BASE_SEQUENCE_OFFSET = 53;
  public static final int RECORDS_COUNT_OFFSET = 57;

  /** Size of the fixed batch header; the first record starts here. */
  public static final int HEADER_SIZE = 61;

  /** Bytes before the batchLength-counted part: baseOffset and batchLength itself. */
  public static final int LOG_OVERHEAD = 12;

  public static final byte MAGIC_V2 = 2;
  public static final int NO_PARTITION_LEADER_EPOCH = -1;
  public static final long NO_PRODUCER_ID = -1L;
  public static final short NO_PRODUCER_EPOCH = -1;
  public static final int NO_SEQUENCE = -1;
  public static final long NO_TIMESTAMP = -1L;

  static final int COMPRESSION_CODEC_MASK = 0x07;
  static final int TIMESTAMP_TYPE_MASK = 0x08;
  static final int TRANSACTIONAL_FLAG_MASK = 0x10;
  static final int CONTROL_FLAG_MASK = 0x20;

  private final ByteBuffer buffer;
  private final int start;

  /** A view of the batch that starts at {@code buffer.position()}. */
  public RecordBatch(ByteBuffer buffer) {
    this(buffer, buffer.position());
  }

  /** A view of the batch that starts at absolute index {@code start} of {@code buffer}. */
  public RecordBatch(ByteBuffer buffer, int start) {
    if (buffer.limit() - start < HEADER_SIZE) {
      throw new CorruptRecordException(
          "batch header needs "
              + HEADER_SIZE
              + " bytes, only "
              + (buffer.limit() - start)
              + " remain");
    }
    this.buffer = buffer;
    this.start = start;
  }

  public long baseOffset() {
    return buffer.getLong(start + BASE_OFFSET_OFFSET);
  }

  /** The offset of the last record: base offset plus last offset delta. */
  public long lastOffset() {
    return baseOffset() + lastOffsetDelta();
  }

  /** The offset the next batch will get. */
  public long nextOffset() {
    return lastOffset() + 1;
  }

  public int batchLength() {
    return buffer.getInt(start + LENGTH_OFFSET);
  }

  /** Bytes the whole batch takes, header included. */
  public int sizeInBytes() {
    return LOG_OVERHEAD + batchLength();
  }

  public int partitionLeaderEpoch() {
    return buffer.getInt(start + PARTITION_LEADER_EPOCH_OFFSET);
  }

  public byte magic() {
    return buffer.get(start + MAGIC_OFFSET);
  }

  /** The stored checksum, an unsigned 32-bit value. */
  public long checksum() {
    return Integer.toUnsignedLong(buffer.getInt(start + CRC_OFFSET));
  }

  public short attributes() {
    return buffer.getShort(start + ATTRIBUTES_OFFSET);
  }

  public CompressionType compressionType() {
    return CompressionType.forId(attributes() & COMPRESSION_CODEC_MASK);
  }

  /**
   * True when the batch's timestamps were set by the broker (log append time), not by the producer.
   */
  public boolean isLogAppendTime() {
    return (attributes() & TIMESTAMP_TYPE_MASK) != 0;
  }

  public boolean isTransactional() {
    return (attributes() & TRANSACTIONAL_FLAG_MASK) != 0;
  }

  public boolean isControlBatch() {
    return (attributes() & CONTROL_FLAG_MASK) != 0;
  }

  public int lastOffsetDelta() {
    return buffer.getInt(start + LAST_OFFSET_DELTA_OFFSET);
  }

  public long baseTimestamp() {
    return buffer.getLong(start + BASE_TIMESTAMP_OFFSET);
  }

  public long maxTimestamp() {
    return buffer.getLong(start + MAX_TIMESTAMP_OFFSET);
  }

  public long producerId() {
    return buffer.getLong(start + PRODUCER_ID_OFFSET);
  }

  public short producerEpoch() {
    return buffer.getShort(start + PRODUCER_EPOCH_OFFSET);
  }

  public int baseSequence() {
    return buffer.getInt(start + BASE_SEQUENCE_OFFSET);
  }

  /**
   * True when an idempotent (or transactional) producer wrote the batch: its producer id is set
   * (Kafka's {@code hasProducerId}). Such a batch carries the producer's epoch and sequence numbers
   * and is tracked by the log's producer state.
   */
  public boolean hasProducerId() {
    return producerId() > NO_PRODUCER_ID;
  }

  /**
   * The sequence number of the batch's last record: the base sequence plus the last offset delta,
   * wrapping past {@code Integer.MAX_VALUE} to 0 as a producer's sequence numbers do; {@link
   * #NO_SEQUENCE} when the batch has none.
   */
  public int lastSequence() {
    int baseSequence = baseSequence();
    return baseSequence == NO_SEQUENCE
        ? NO_SEQUENCE
        : incrementSequence(baseSequence, lastOffsetDelta());
  }

  /** {@code sequence + increment}, wrapping past {@code Integer.MAX_VALUE} to 0 (Kafka's rule). */
  public static int incrementSequence(int sequence, int increment) {
    if (sequence > Integer.MAX_VALUE - increment) {
      return increment - (Integer.MAX_VALUE - sequence) - 1;
    }
    return sequence + increment;
  }

  public int recordCount() {
    return buffer.getInt(start + RECORDS_COUNT_OFFSET);
  }

  /** Assigns offsets to the whole batch; outside the CRC, so the checksum stays valid. */
  public void setBaseOffset(long baseOffset) {
    buffer.putLong(start + BASE_OFFSET_OFFSET, baseOffset);
  }

  /** Stamps the leader epoch under which the batch was appended; outside the CRC. */
  public void setPartitionLeaderEpoch(int leaderEpoch) {
    buffer.putInt(start + PARTITION_LEADER_EPOCH_OFFSET, leaderEpoch);
  }

  /** CRC32C over attributes..end, as the batch's checksum field should hold. */
  public long computeChecksum() {
    CRC32C crc = new CRC32C();
    ByteBuffer view = buffer.duplicate();
    view.limit(start + sizeInBytes()).position(start + ATTRIBUTES_OFFSET);
    crc.update(view);
    return crc.getValue();
  }

  /**
   * Checks magic, length bounds and checksum; throws {@link CorruptRecordException} naming what is
   * wrong. A batch that passes can be stored, indexed and decoded.
   */
  public void validate() {
    checkFraming();
    long stored = checksum();
    long computed = computeChecksum();
    if (stored != computed) {
      throw new CorruptRecordException(
          "CRC mismatch: stored "
              + Long.toHexString(stored)
              + ", computed "
              + Long.toHexString(computed));
    }
  }

  /** Magic, length and counts: what must hold before the batch's bytes can be walked at all. */
  private void checkFraming() {
    if (magic() != MAGIC_V2) {
      throw new CorruptRecordException(
          "unsupported magic " + magic() + " (only v2 record batches are accepted)");
    }
    int length = batchLength();
    if (length < HEADER_SIZE - LOG_OVERHEAD) {
      throw new CorruptRecordException(
          "batch length " + length + " is smaller than the batch header");
    }
    if (buffer.limit() - start < LOG_OVERHEAD + (long) length) {
      throw new CorruptRecordException(
          "batch claims "
              + (LOG_OVERHEAD + length)
              + " bytes, only "
              + (buffer.limit() - start)
              + " present");
    }
    if (lastOffsetDelta() < 0 || recordCount() < 0) {
      throw new CorruptRecordException("negative record count or last offset delta");
    }
  }

  /**
   * Decodes the records lazily, decompressing the whole records section first if the batch is
   * compressed. Uncompressed keys and values share this batch's bytes. Control batches (transaction
   * markers) decode like any other; callers that serve data skip them ({@link #isControlBatch()}).
   * Checks framing but not the CRC: call {@link #validate()} first on bytes from outside. Throws
   * {@link CorruptRecordException} on bad framing, either here or from the iterator.
   */
  public Iterator<Record> recordIterator() {
    checkFraming();
    ByteBuffer section = buffer.slice(start + HEADER_SIZE, sizeInBytes() - HEADER_SIZE);
    CompressionType compression = compressionType();
    if (compression != CompressionType.NONE) {
      section = Codecs.decompress(compression, section);
    }
    return new RecordIterator(section, this);
  }

  /** All records of the batch, decoded as {@link #recordIterator()} does. */
  public List<Record> records() {
    Iterator<Record> iterator = recordIterator();
    // The count is untrusted until decoded: cap the initial capacity by what the bytes could hold
    // (a record takes
    // at least 7 bytes uncompressed; compressed batches may hold more, and the list then grows).
    List<Record> records = new ArrayList<>(Math.min(recordCount(), sizeInBytes() / 7));
    iterator.forEachRemaining(records::add);
    return records;
  }

  /** A read-only buffer of exactly this batch's bytes (shares content, no copy). */
  public ByteBuffer slice() {
    return buffer
        .duplicate()
        .limit(start + sizeInBytes())
        .position(start)
        .slice()
        .asReadOnlyBuffer();
  }

  /** Absolute index of the batch's first byte in the underlying buffer. */
  public int start() {
    return start;
  }

  ByteBuffer buffer() {
    return buffer;
  }

  @Override
  public String toString() {
    return "RecordBatch(baseOffset="
        + baseOffset()
        + ", lastOffset="
        + lastOffset()
        + ", count="
        + recordCount()
        + ", bytes="
        + sizeInBytes()
        + ", epoch="
        + partitionLeaderEpoch()
        + ", compression="
        + compressionType()
        + ")";
  }
}
