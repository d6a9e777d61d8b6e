package dev.tributary.log;

import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A producer state snapshot on disk (Kafka's {@code <offset>.snapshot} files, our own layout): the
 * state of every producer of a partition log as of offset {@code <offset>}, i.e. after every batch
 * below it. Named {@code <offset, 20 digits>.snapshot} in the partition directory, written
 * atomically ({@link FileIo#writeAtomically}: a {@code .tmp} renamed into place; fsynced with the
 * directory only when durable, see {@link ProducerStateManager#takeSnapshot}). Layout, big-endian:
 *
 * <pre>
 * version          int16   1
 * crc              uint32  CRC32C of every byte after this field
 * producerCount    int32
 * per producer:
 *   producerId       int64
 *   producerEpoch    int16
 *   batchCount       int8    1..5, oldest first (the last one's timestamp is the producer's)
 *   per batch:       firstSeq int32, lastSeq int32, firstOffset int64, lastOffset int64,
 *                    timestampMs int64
 * </pre>
 *
 * Unlike Kafka's, which keeps only each producer's last batch, it keeps all five cached batches, so
 * a state loaded from a snapshot recognises every retry the state it was taken from did. A file
 * that fails its CRC or does not parse is {@link CorruptSnapshotException}: the log then ignores it
 * and rebuilds the state from an older snapshot and its batches.
 */
final class ProducerSnapshotFile {
  static final String SUFFIX = ".snapshot";
  private static final short VERSION = 1;
  private static final int HEADER_BYTES = 2 + 4;
  private static final int BATCH_BYTES = 4 + 4 + 8 + 8 + 8;

  private ProducerSnapshotFile() {}

  /** A snapshot that cannot be trusted: wrong version, bad CRC, or bytes that do not parse. */
  static final class CorruptSnapshotException extends RuntimeException {
    CorruptSnapshotException(String message) {
      super(message);
    }
  }

  static Path path(Path dir, long offset) {
    return dir.resolve(LogSegment.fileName(offset) + SUFFIX);
  }

  /** The offset a snapshot file name stands for, or -1 if the name is not a snapshot's. */
  static long offsetOf(Path file) {
    String name = file.getFileName().toString();
    if (!name.endsWith(SUFFIX) || name.length() != 20 + SUFFIX.length()) {
      return -1;
    }
    String digits = name.substring(0, 20);
    return digits.chars().allMatch(Character::isDigit) ? Long.parseLong(digits) : -1;
  }

  static void write(Path file, Collection<ProducerStateEntry> producers, boolean durable)
      throws IOException {
    int size = HEADER_BYTES + 4;
    for (ProducerStateEntry entry : producers) {
      size += 8 + 2 + 1 + entry.batches().size() * BATCH_BYTES;
    }
    ByteBuffer buffer = ByteBuffer.allocate(size);
    buffer.putShort(VERSION).putInt(0).putInt(producers.size());
    for (ProducerStateEntry entry : producers) {
      List<BatchMetadata> batches = entry.batches();
      buffer.putLong(entry.producerId()).putShort(entry.producerEpoch());
      buffer.put((byte) batches.size());
      for (BatchMetadata batch : batches) {
        buffer.putInt(batch.firstSeq()).putInt(batch.lastSeq());
        buffer
            .putLong(batch.firstOffset())
            .putLong(batch.lastOffset())
            .putLong(batch.timestampMs());
      }
    }
    buffer.putInt(2, (int) crc(buffer.array(), size));
    FileIo.writeAtomically(file, buffer.flip(), durable);
  }

  /**
   * The producers in {@code file}.
   *
   * @throws CorruptSnapshotException if it fails its CRC or does not parse
   * @throws IOException if it cannot be read
   */
  static List<ProducerStateEntry> read(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    try {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      short version = buffer.getShort();
      if (version != VERSION) {
        throw new CorruptSnapshotException("unknown snapshot version " + version);
      }
      long stored = Integer.toUnsignedLong(buffer.getInt());
      long computed = crc(bytes, bytes.length);
      if (stored != computed) {
        throw new CorruptSnapshotException(
            "CRC mismatch: stored "
                + Long.toHexString(stored)
                + ", computed "
                + Long.toHexString(computed));
      }
      int count = buffer.getInt();
      if (count < 0 || count > buffer.remaining() / (8 + 2 + 1 + BATCH_BYTES)) {
        throw new CorruptSnapshotException("implausible producer count " + count);
      }
      List<ProducerStateEntry> entries = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        ProducerStateEntry entry = new ProducerStateEntry(buffer.getLong(), buffer.getShort());
        int batches = buffer.get();
        if (batches < 1 || batches > ProducerStateEntry.NUM_BATCHES_TO_RETAIN) {
          throw new CorruptSnapshotException("implausible batch count " + batches);
        }
        for (int b = 0; b < batches; b++) {
          BatchMetadata batch =
              new BatchMetadata(
                  buffer.getInt(),
                  buffer.getInt(),
                  buffer.getLong(),
                  buffer.getLong(),
                  buffer.getLong());
          entry.addBatch(entry.producerEpoch(), batch);
        }
        entries.add(entry);
      }
      if (buffer.hasRemaining()) {
        throw new CorruptSnapshotException(buffer.remaining() + " bytes after the last producer");
      }
      return entries;
    } catch (BufferUnderflowException e) {
      throw new CorruptSnapshotException("snapshot ends in the middle of an entry");
    }
  }

  private static long crc(byte[] bytes, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, HEADER_BYTES, length - HEADER_BYTES);
    return crc.getValue();
  }
}
