package dev.tributary.log.record;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import org.xerial.snappy.SnappyInputStream;
import org.xerial.snappy.SnappyOutputStream;

/**
 * Compresses and decompresses the records section of a batch in the stream formats Kafka producers
 * use: GZIP (RFC 1952), SNAPPY in snappy-java's framed stream format, LZ4 in the LZ4 frame format
 * (64 KiB independent blocks, no checksums, as Kafka's {@code Lz4BlockOutputStream} writes), ZSTD
 * as a zstd frame. Stateless and thread-safe; each call allocates its own streams.
 */
final class Codecs {
  private Codecs() {}

  /** The compressed form of {@code raw[0, length)}. */
  static byte[] compress(CompressionType type, byte[] raw, int length) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, length / 2));
    try (OutputStream stream = wrapForOutput(type, out)) {
      stream.write(raw, 0, length);
    } catch (IOException e) {
      // Nothing here does real I/O; an IOException means a codec bug, not bad input.
      throw new IllegalStateException("failed to compress " + type.kafkaName + " batch", e);
    }
    return out.toByteArray();
  }

  /**
   * The uncompressed form of {@code compressed}'s remaining bytes; throws {@link
   * CorruptRecordException} when they are not a valid stream of {@code type}.
   */
  static ByteBuffer decompress(CompressionType type, ByteBuffer compressed) {
    try (InputStream stream = wrapForInput(type, new ByteBufferInputStream(compressed))) {
      return ByteBuffer.wrap(stream.readAllBytes());
    } catch (IOException | RuntimeException e) {
      // Codecs report bad input with IOExceptions and assorted runtime exceptions (LZ4Exception,
      // SnappyError...).
      throw new CorruptRecordException(
          "failed to decompress " + type.kafkaName + " batch: " + e, e);
    }
  }

  private static OutputStream wrapForOutput(CompressionType type, OutputStream out)
      throws IOException {
    return switch (type) {
      case NONE -> out;
      case GZIP -> new GZIPOutputStream(out, 8 * 1024);
      case SNAPPY -> new SnappyOutputStream(out);
      case LZ4 ->
          new LZ4FrameOutputStream(
              out,
              LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB,
              LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE);
      case ZSTD -> new ZstdOutputStreamNoFinalizer(out);
    };
  }

  private static InputStream wrapForInput(CompressionType type, InputStream in) throws IOException {
    return switch (type) {
      case NONE -> in;
      case GZIP -> new GZIPInputStream(in, 8 * 1024);
      case SNAPPY -> new SnappyInputStream(in);
      case LZ4 -> new LZ4FrameInputStream(in);
      case ZSTD -> new ZstdInputStreamNoFinalizer(in);
    };
  }

  /**
   * Reads a buffer's remaining bytes without copying them first (the buffer may be direct or
   * read-only).
   */
  private static final class ByteBufferInputStream extends InputStream {
    private final ByteBuffer buffer;

    ByteBufferInputStream(ByteBuffer buffer) {
      this.buffer = buffer.duplicate();
    }

    @Override
    public int read() {
      return buffer.hasRemaining() ? buffer.get() & 0xff : -1;
    }

    @Override
    public int read(byte[] bytes, int off, int len) {
      if (len == 0) {
        return 0;
      }
      if (!buffer.hasRemaining()) {
        return -1;
      }
      int n = Math.min(len, buffer.remaining());
      buffer.get(bytes, off, n);
      return n;
    }

    @Override
    public int available() {
      return buffer.remaining();
    }
  }
}
