package dev.tributary.metadata;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A quorum of one: the metadata log in a local file, fsynced on every commit; this broker is always
 * the active controller. Used by a broker that runs without a controller quorum (no {@code
 * quorum-voters} configured).
 *
 * <p>File format, one frame per committed batch: {@code length:int32 crc32c:int32 payload}, where
 * payload is {@code count:int32} then {@code (size:int32 record-bytes)*count} ({@link
 * MetadataRecordSerde}). A torn or corrupt last frame (a crash mid-write) is truncated away on
 * open: the batch was never acknowledged, because an append returns only after the fsync.
 *
 * <p>Concurrency: {@link #append} is synchronized, so batches commit and replay in one order;
 * {@link #image()} is a volatile read of an immutable image.
 */
public final class LocalMetadataLog implements MetadataQuorum {
  private static final Logger log = LoggerFactory.getLogger(LocalMetadataLog.class);
  private static final int FRAME_HEADER_BYTES = 8;

  private final FileChannel channel;
  private final int localBrokerId;
  private final List<Consumer<MetadataImage>> listeners = new CopyOnWriteArrayList<>();

  /** Invariant: equals the replay of every record in the file, in order. */
  private volatile MetadataImage image;

  private long nextOffset;

  /** Set when a failed write could not be rolled back; no append is accepted after it. */
  private boolean failed;

  private LocalMetadataLog(
      FileChannel channel, int localBrokerId, MetadataImage image, long nextOffset) {
    this.channel = channel;
    this.localBrokerId = localBrokerId;
    this.image = image;
    this.nextOffset = nextOffset;
  }

  /**
   * Opens (or creates) the log in {@code dir}, truncates a torn tail and replays everything into
   * the image.
   */
  public static LocalMetadataLog open(Path dir, int localBrokerId) {
    try {
      Files.createDirectories(dir);
      boolean created = !Files.exists(dir.resolve("metadata.log"));
      FileChannel channel =
          FileChannel.open(
              dir.resolve("metadata.log"),
              StandardOpenOption.CREATE,
              StandardOpenOption.READ,
              StandardOpenOption.WRITE);
      MetadataImage image = MetadataImage.EMPTY;
      long offset = 0;
      long position = 0;
      long size = channel.size();
      ByteBuffer header = ByteBuffer.allocate(FRAME_HEADER_BYTES);
      while (position + FRAME_HEADER_BYTES <= size) {
        header.clear();
        channel.read(header, position);
        int length = header.getInt(0);
        int crc = header.getInt(4);
        if (length < 4 || position + FRAME_HEADER_BYTES + length > size) {
          break;
        }
        ByteBuffer payload = ByteBuffer.allocate(length);
        channel.read(payload, position + FRAME_HEADER_BYTES);
        if (crc(payload.array()) != crc) {
          break;
        }
        payload.flip();
        for (MetadataRecord record : decode(payload)) {
          image = image.replay(offset++, record);
        }
        position += FRAME_HEADER_BYTES + length;
      }
      if (position < size) {
        log.warn("Truncating a torn metadata log tail: {} of {} bytes are valid", position, size);
        channel.truncate(position);
        channel.force(true);
      }
      channel.position(position);
      if (created) {
        fsyncDirectory(
            dir); // the new file's directory entry must be durable before a commit is acknowledged
      }
      return new LocalMetadataLog(channel, localBrokerId, image, offset);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open metadata log in " + dir, e);
    }
  }

  @Override
  public synchronized MetadataImage append(long expectedLastOffset, List<MetadataRecord> records) {
    if (image.lastOffset() != expectedLastOffset) {
      throw new StaleMetadataException(expectedLastOffset, image.lastOffset());
    }
    if (records.isEmpty()) {
      return image;
    }
    MetadataImage next = image;
    long offset = nextOffset;
    for (MetadataRecord record : records) {
      next =
          next.replay(
              offset++, record); // a record that cannot replay is refused before it is written
    }
    if (failed) {
      throw new IllegalStateException(
          "the metadata log failed an earlier write; restart the broker");
    }
    ByteBuffer frame = encode(records);
    long position = -1;
    try {
      position = channel.position();
      while (frame.hasRemaining()) {
        channel.write(frame);
      }
      channel.force(false);
    } catch (IOException e) {
      rollBack(position);
      throw new UncheckedIOException("cannot write the metadata log", e);
    }
    nextOffset = offset;
    image = next;
    for (Consumer<MetadataImage> listener : listeners) {
      listener.accept(next);
    }
    return next;
  }

  /**
   * Cuts a partly written frame off again so that later commits do not land behind it (recovery
   * stops at the first bad frame and would drop them). If even that fails, the log refuses all
   * further appends.
   */
  private void rollBack(long position) {
    try {
      if (position < 0) {
        throw new IOException("position unknown");
      }
      channel.truncate(position);
      channel.position(position);
      channel.force(false);
    } catch (IOException e) {
      failed = true;
      log.error("Cannot roll back a failed metadata write; refusing further appends", e);
    }
  }

  @Override
  public OptionalInt activeControllerId() {
    return OptionalInt.of(localBrokerId);
  }

  @Override
  public boolean isActiveController() {
    return true;
  }

  @Override
  public long controllerEpoch() {
    return 1;
  }

  @Override
  public MetadataImage image() {
    return image;
  }

  @Override
  public synchronized void subscribe(Consumer<MetadataImage> listener) {
    listeners.add(listener);
    listener.accept(image);
  }

  @Override
  public synchronized void close() {
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
      directory.force(true);
    }
  }

  private static ByteBuffer encode(List<MetadataRecord> records) {
    List<byte[]> encoded = new ArrayList<>(records.size());
    int payloadBytes = 4;
    for (MetadataRecord record : records) {
      byte[] bytes = MetadataRecordSerde.serialize(record);
      encoded.add(bytes);
      payloadBytes += 4 + bytes.length;
    }
    ByteBuffer payload = ByteBuffer.allocate(payloadBytes).putInt(records.size());
    for (byte[] bytes : encoded) {
      payload.putInt(bytes.length).put(bytes);
    }
    ByteBuffer frame = ByteBuffer.allocate(FRAME_HEADER_BYTES + payloadBytes);
    frame.putInt(payloadBytes).putInt(crc(payload.array())).put(payload.array()).flip();
    return frame;
  }

  private static List<MetadataRecord> decode(ByteBuffer payload) {
    int count = payload.getInt();
    List<MetadataRecord> records = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      byte[] bytes = new byte[payload.getInt()];
      payload.get(bytes);
      records.add(MetadataRecordSerde.deserialize(bytes));
    }
    return records;
  }

  private static int crc(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return (int) crc.getValue();
  }
}
