package dev.tributary.api;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import tools.jackson.core.io.JsonStringEncoder;

/**
 * The bytes of one rendered JSON answer, written one token at a time by the answers that have a
 * fixed shape and many entries: a record read ({@link RecordJsonWriter}) and a produce's offsets.
 * It exists for speed. Profiled on consume runs of a warm broker, Jackson's streaming generator
 * took about half of the request threads' CPU for 100-byte records: flushing its 8 KiB buffer into
 * a growing stream, escaping the same topic name for every record, base64 through its own buffer,
 * then one more copy into the answer's array. Here numbers are written straight into byte arrays,
 * base64 by the JDK's encoder (vector code where the CPU has it), strings are escaped by Jackson's
 * own encoder (so the escaping is Jackson's), and the arrays go to the response as they are ({@link
 * RenderedJson}).
 *
 * <p>The answer is kept in chunks of at most {@link #CHUNK_BYTES}, not one array: an array of half
 * a G1 region or more (512 KiB with the 1 MiB regions of a 1 GiB heap) is "humongous", allocated
 * outside the young generation; a first version of this class that grew one array for a 2.3 MB
 * answer had G1's concurrent marking take a third of the broker's CPU. Chunks also never have to be
 * grown and copied.
 *
 * <p>Not thread-safe: one per rendered answer.
 */
final class JsonOutput {
  /** Below half of G1's smallest region (1 MiB), so no chunk is ever humongous. */
  static final int CHUNK_BYTES = 256 * 1024;

  /** The most bytes of a value encoded as base64 at once; a multiple of three. */
  private static final int SCRATCH_BYTES = 3 * 16 * 1024;

  /** The longest token written whole into one chunk (a number, a small fixed fragment). */
  private static final int MAX_TOKEN_BYTES = 32;

  private static final Base64.Encoder BASE64 = Base64.getEncoder();
  private static final byte[] NULL = ascii("null");
  private static final byte[] LONG_MIN_VALUE = ascii(Long.toString(Long.MIN_VALUE));

  /** Chunks filled before {@link #chunk}, each with how many of its bytes are used. */
  private final List<ByteBuffer> full = new ArrayList<>();

  /** Invariant: {@code 0 <= used <= chunk.length}; {@code chunk[0, used)} ends the JSON so far. */
  private byte[] chunk;

  private int used;

  /** A full piece ({@link #SCRATCH_BYTES}) of a large value, once one is encoded. */
  private byte[] fullPiece;

  /** The last shorter piece encoded; exactly its length ({@link #pieceArray(int)}). */
  private byte[] lastPiece = new byte[0];

  /** The base64 of one piece; grows up to the encoding of {@link #SCRATCH_BYTES}. */
  private byte[] encoded = new byte[256];

  /** {@code expectedBytes}: the size of the first chunk (capped at a chunk's size). */
  JsonOutput(int expectedBytes) {
    this.chunk = new byte[Math.max(MAX_TOKEN_BYTES, Math.min(expectedBytes, CHUNK_BYTES))];
  }

  static byte[] ascii(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  /** A string as a quoted JSON string's bytes, escaped as Jackson escapes it. */
  static byte[] quoted(String s) {
    byte[] escaped = JsonStringEncoder.getInstance().quoteAsUTF8(s);
    byte[] out = new byte[escaped.length + 2];
    out[0] = '"';
    System.arraycopy(escaped, 0, out, 1, escaped.length);
    out[out.length - 1] = '"';
    return out;
  }

  void write(byte b) {
    if (used == chunk.length) {
      nextChunk();
    }
    chunk[used++] = b;
  }

  void write(byte[] bytes) {
    write(bytes, 0, bytes.length);
  }

  /** Any number of bytes, split across chunks where they do not fit. */
  void write(byte[] bytes, int offset, int length) {
    while (length > 0) {
      if (used == chunk.length) {
        nextChunk();
      }
      int n = Math.min(length, chunk.length - used);
      System.arraycopy(bytes, offset, chunk, used, n);
      used += n;
      offset += n;
      length -= n;
    }
  }

  void writeNull() {
    write(NULL);
  }

  /** A JSON number: the decimal digits of {@code value}, without a String in between. */
  void writeNumber(long value) {
    if (value == Long.MIN_VALUE) {
      write(LONG_MIN_VALUE);
      return;
    }
    if (chunk.length - used < MAX_TOKEN_BYTES) {
      nextChunk();
    }
    if (value < 0) {
      chunk[used++] = '-';
      value = -value;
    }
    int end = used + digits(value);
    int at = end;
    while (value >= 100) {
      int twoDigits = (int) (value % 100);
      value /= 100;
      chunk[--at] = (byte) ('0' + twoDigits % 10);
      chunk[--at] = (byte) ('0' + twoDigits / 10);
    }
    if (value >= 10) {
      chunk[--at] = (byte) ('0' + (int) value % 10);
      value /= 10;
    }
    chunk[--at] = (byte) ('0' + (int) value);
    used = end;
  }

  /** How many decimal digits a non-negative value has. */
  private static int digits(long value) {
    long limit = 10;
    for (int digits = 1; digits < 19; digits++) {
      if (value < limit) {
        return digits;
      }
      limit *= 10;
    }
    return 19;
  }

  /**
   * The buffer's remaining bytes as a quoted base64 string (standard alphabet, padded, no line
   * breaks). Records hand out read-only views, which give no access to their array: the bytes are
   * copied piece by piece into an array this output keeps, not into a new array per value.
   */
  void writeBase64(ByteBuffer bytes) {
    write((byte) '"');
    int at = bytes.position();
    int length = bytes.remaining();
    while (length > 0) {
      // Whole groups of three bytes per piece, so only the last piece can need padding.
      int n = Math.min(length, SCRATCH_BYTES);
      byte[] piece = pieceArray(n);
      bytes.get(at, piece, 0, n);
      encode(piece);
      at += n;
      length -= n;
    }
    write((byte) '"');
  }

  /** The bytes as a quoted base64 string (standard alphabet, padded, no line breaks). */
  void writeBase64(byte[] src, int offset, int length) {
    write((byte) '"');
    if (offset == 0 && length == src.length && length <= SCRATCH_BYTES) {
      encode(src); // the whole array: no copy needed
    } else {
      while (length > 0) {
        int n = Math.min(length, SCRATCH_BYTES);
        byte[] piece = pieceArray(n);
        System.arraycopy(src, offset, piece, 0, n);
        encode(piece);
        offset += n;
        length -= n;
      }
    }
    write((byte) '"');
  }

  /**
   * An array of exactly {@code length} bytes to copy a piece into, since the JDK's encoder takes a
   * whole array: a full piece's own array, or one kept while the last pieces keep their length, as
   * a read's values mostly do.
   */
  private byte[] pieceArray(int length) {
    if (length == SCRATCH_BYTES) {
      if (fullPiece == null) {
        fullPiece = new byte[SCRATCH_BYTES];
      }
      return fullPiece;
    }
    if (lastPiece.length != length) {
      lastPiece = new byte[length];
    }
    return lastPiece;
  }

  /**
   * Base64 of the whole array through the JDK's encoder, then into the chunks. Where the CPU allows
   * (x86 with AVX-512, AArch64), the JIT replaces the encoder's loop with vector code: 34 against
   * 80 ns per 100-byte value for our former table loop on this project's benchmark machine.
   */
  private void encode(byte[] piece) {
    int encodedLength = (piece.length + 2) / 3 * 4;
    if (encoded.length < encodedLength) {
      encoded =
          new byte[Math.max(encodedLength, Math.min(2 * encoded.length, SCRATCH_BYTES / 3 * 4))];
    }
    int n = BASE64.encode(piece, encoded);
    write(encoded, 0, n);
  }

  /** What was written, as it is (no copy). The output is not to be written to afterwards. */
  RenderedJson rendered() {
    List<ByteBuffer> chunks = new ArrayList<>(full.size() + 1);
    chunks.addAll(full);
    chunks.add(ByteBuffer.wrap(chunk, 0, used));
    return new RenderedJson(chunks);
  }

  private void nextChunk() {
    full.add(ByteBuffer.wrap(chunk, 0, used));
    chunk = new byte[CHUNK_BYTES];
    used = 0;
  }
}
