package dev.tributary.metadata.ratis;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.metadata.MetadataRecordSerde;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The three byte formats of the Ratis quorum. All integers big-endian; records are {@link
 * MetadataRecordSerde}.
 *
 * <pre>
 * Raft entry (one metadata batch):  expectedLastOffset:int64  count:int32  (size:int32 record-bytes)*count
 * Apply reply (leader → append):    outcome:int8  lastOffset:int64  size:int32 detail-utf8-bytes
 * Snapshot file:                    formatVersion:int32  lastOffset:int64  count:int32  (size:int32 record-bytes)*count
 * </pre>
 *
 * The snapshot's records are {@link MetadataImage#toRecords()}; replayed from {@link
 * MetadataImage#EMPTY} and given {@link MetadataImage#withLastOffset lastOffset} they rebuild the
 * image. Ratis keeps an MD5 beside each snapshot file, so the format carries no checksum of its
 * own.
 */
final class MetadataBatchCodec {
  static final int SNAPSHOT_FORMAT_VERSION = 1;

  private MetadataBatchCodec() {}

  /** A decoded Raft entry. */
  record Batch(long expectedLastOffset, List<MetadataRecord> records) {}

  /** What applying one batch did, identically on every member. */
  enum Outcome {
    /** The image was at {@code expectedLastOffset}; every record replayed. */
    APPLIED,
    /** The image had moved on; nothing changed. */
    STALE,
    /** A record could not be decoded or replayed; nothing changed. {@code detail} says why. */
    REJECTED
  }

  /** The reply of one applied entry; {@code lastOffset} is the image's last offset after it. */
  record ApplyResult(Outcome outcome, long lastOffset, String detail) {}

  static byte[] encodeBatch(long expectedLastOffset, List<MetadataRecord> records) {
    List<byte[]> encoded = new ArrayList<>(records.size());
    int bytes = 8 + 4;
    for (MetadataRecord record : records) {
      byte[] recordBytes = MetadataRecordSerde.serialize(record);
      encoded.add(recordBytes);
      bytes += 4 + recordBytes.length;
    }
    ByteBuffer buffer =
        ByteBuffer.allocate(bytes).putLong(expectedLastOffset).putInt(records.size());
    for (byte[] recordBytes : encoded) {
      buffer.putInt(recordBytes.length).put(recordBytes);
    }
    return buffer.array();
  }

  /** Throws {@link IllegalArgumentException} on truncated or undecodable bytes. */
  static Batch decodeBatch(ByteBuffer buffer) {
    try {
      long expectedLastOffset = buffer.getLong();
      List<MetadataRecord> records = readRecords(buffer);
      if (buffer.hasRemaining()) {
        throw new IllegalArgumentException(
            buffer.remaining() + " trailing bytes after a metadata batch");
      }
      return new Batch(expectedLastOffset, records);
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException("truncated metadata batch", e);
    }
  }

  static byte[] encodeResult(ApplyResult result) {
    byte[] detail = result.detail().getBytes(UTF_8);
    return ByteBuffer.allocate(1 + 8 + 4 + detail.length)
        .put((byte) result.outcome().ordinal())
        .putLong(result.lastOffset())
        .putInt(detail.length)
        .put(detail)
        .array();
  }

  static ApplyResult decodeResult(ByteBuffer buffer) {
    try {
      Outcome outcome = Outcome.values()[buffer.get()];
      long lastOffset = buffer.getLong();
      byte[] detail = new byte[buffer.getInt()];
      buffer.get(detail);
      return new ApplyResult(outcome, lastOffset, new String(detail, UTF_8));
    } catch (BufferUnderflowException | ArrayIndexOutOfBoundsException e) {
      throw new IllegalArgumentException("malformed metadata apply reply", e);
    }
  }

  static void writeSnapshot(DataOutputStream out, MetadataImage image) throws IOException {
    List<MetadataRecord> records = image.toRecords();
    out.writeInt(SNAPSHOT_FORMAT_VERSION);
    out.writeLong(image.lastOffset());
    out.writeInt(records.size());
    for (MetadataRecord record : records) {
      byte[] bytes = MetadataRecordSerde.serialize(record);
      out.writeInt(bytes.length);
      out.write(bytes);
    }
  }

  static MetadataImage readSnapshot(DataInputStream in) throws IOException {
    int version = in.readInt();
    if (version != SNAPSHOT_FORMAT_VERSION) {
      throw new IOException("unknown metadata snapshot format version " + version);
    }
    long lastOffset = in.readLong();
    int count = in.readInt();
    MetadataImage image = MetadataImage.EMPTY;
    for (int i = 0; i < count; i++) {
      byte[] bytes = new byte[in.readInt()];
      in.readFully(bytes);
      // The offsets given to replay here are placeholders: the snapshot's own offset is set below.
      image = image.replay(i, MetadataRecordSerde.deserialize(bytes));
    }
    if (in.read() != -1) {
      throw new IOException("trailing bytes after a metadata snapshot");
    }
    return image.withLastOffset(lastOffset);
  }

  private static List<MetadataRecord> readRecords(ByteBuffer buffer) {
    int count = buffer.getInt();
    if (count < 0 || count > buffer.remaining() / 4) {
      throw new IllegalArgumentException(
          "impossible record count " + count + " in a metadata batch");
    }
    List<MetadataRecord> records = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int size = buffer.getInt();
      if (size < 0 || size > buffer.remaining()) {
        throw new IllegalArgumentException("record size " + size + " exceeds the metadata batch");
      }
      byte[] bytes = new byte[size];
      buffer.get(bytes);
      records.add(MetadataRecordSerde.deserialize(bytes));
    }
    return records;
  }
}
