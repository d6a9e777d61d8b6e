package dev.tributary.bench;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Random;

/**
 * Builds produce request bodies ahead of the run, so that the timed loop only hands bytes to the
 * HTTP client.
 *
 * <p>Shape: {@code {"records":[{"value":V},...]}} with no key (the partition is in the URL). For
 * {@link PayloadFormat#BINARY} V is the base64 of {@code recordSizeBytes} random bytes; for {@link
 * PayloadFormat#JSON} V is a JSON string of {@code recordSizeBytes} characters from {@code
 * [A-Za-z0-9]}, which need no escaping, so the record's payload is exactly {@code recordSizeBytes}
 * bytes in both formats.
 */
final class ProduceBodies {
  private static final char[] ALPHANUMERIC =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

  /**
   * Distinct bodies kept per batch size: enough that values differ between requests, few enough to
   * be cheap.
   */
  static final int MAX_VARIANTS = 16;

  /** Memory budget for the prebuilt bodies of one batch size. */
  static final long MAX_POOL_BYTES = 64L * 1024 * 1024;

  private final byte[][] bodies;
  private int next;

  private ProduceBodies(byte[][] bodies) {
    this.bodies = bodies;
  }

  /**
   * A pool of distinct bodies of {@code records} records each; {@link #next()} cycles through them.
   */
  static ProduceBodies pool(PayloadFormat format, int records, int recordSizeBytes, long seed) {
    Random random = new Random(seed);
    byte[] first = body(format, records, recordSizeBytes, random);
    int variants = (int) Math.max(1, Math.min(MAX_VARIANTS, MAX_POOL_BYTES / first.length));
    byte[][] bodies = new byte[variants][];
    bodies[0] = first;
    for (int i = 1; i < variants; i++) {
      bodies[i] = body(format, records, recordSizeBytes, random);
    }
    return new ProduceBodies(bodies);
  }

  /** Not thread-safe: one sending thread takes bodies. */
  byte[] next() {
    byte[] body = bodies[next];
    next = (next + 1) % bodies.length;
    return body;
  }

  int size() {
    return bodies.length;
  }

  static byte[] body(PayloadFormat format, int records, int recordSizeBytes, Random random) {
    if (records < 1 || recordSizeBytes < 1) {
      throw new IllegalArgumentException("records and recordSizeBytes must be positive");
    }
    StringBuilder sb =
        new StringBuilder(records * (encodedLength(format, recordSizeBytes) + 16) + 16);
    sb.append("{\"records\":[");
    byte[] raw = new byte[recordSizeBytes];
    for (int i = 0; i < records; i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append("{\"value\":\"");
      if (format == PayloadFormat.BINARY) {
        random.nextBytes(raw);
        sb.append(Base64.getEncoder().encodeToString(raw));
      } else {
        for (int c = 0; c < recordSizeBytes; c++) {
          sb.append(ALPHANUMERIC[random.nextInt(ALPHANUMERIC.length)]);
        }
      }
      sb.append("\"}");
    }
    sb.append("]}");
    return sb.toString().getBytes(StandardCharsets.US_ASCII);
  }

  private static int encodedLength(PayloadFormat format, int recordSizeBytes) {
    return format == PayloadFormat.BINARY ? (recordSizeBytes + 2) / 3 * 4 : recordSizeBytes;
  }
}
