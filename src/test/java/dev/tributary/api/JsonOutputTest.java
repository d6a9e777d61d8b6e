package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Base64 in {@link JsonOutput} against the JDK's own encoding, at every length where pieces and
 * chunks split a value, one after another in the same output (no state may leak between values).
 */
class JsonOutputTest {
  private static final int PIECE = 3 * 16 * 1024;

  private static final int[] LENGTHS = {
    0,
    1,
    2,
    3,
    4,
    5,
    99,
    100,
    101,
    PIECE - 1,
    PIECE,
    PIECE + 1,
    PIECE + 2,
    2 * PIECE + 1,
    JsonOutput.CHUNK_BYTES + 1,
    100,
    7,
    100
  };

  @Test
  void valuesFromReadOnlyBuffersAreTheJdksBase64() {
    Random random = new Random(34);
    JsonOutput out = new JsonOutput(16);
    StringBuilder expected = new StringBuilder();
    for (int length : LENGTHS) {
      byte[] value = new byte[length + 3];
      random.nextBytes(value);
      // A read-only view that starts inside its array, as a record's value does.
      ByteBuffer view = ByteBuffer.wrap(value, 2, length).slice().asReadOnlyBuffer();
      out.writeBase64(view);
      assertThat(view.position()).isZero();
      out.write((byte) ',');
      expected.append(quotedBase64(value, 2, length)).append(',');
    }
    assertThat(text(out)).isEqualTo(expected.toString());
  }

  @Test
  void valuesFromArraysWholeOrInPartAreTheJdksBase64() {
    Random random = new Random(35);
    JsonOutput out = new JsonOutput(16);
    StringBuilder expected = new StringBuilder();
    for (int length : LENGTHS) {
      byte[] whole = new byte[length];
      random.nextBytes(whole);
      out.writeBase64(whole, 0, whole.length);
      byte[] padded = new byte[length + 5];
      random.nextBytes(padded);
      out.writeBase64(padded, 3, length);
      expected.append(quotedBase64(whole, 0, length)).append(quotedBase64(padded, 3, length));
    }
    assertThat(text(out)).isEqualTo(expected.toString());
  }

  /** What the JDK makes of {@code bytes[from, from + length)}, quoted as a JSON string. */
  private static String quotedBase64(byte[] bytes, int from, int length) {
    return '"'
        + Base64.getEncoder().encodeToString(Arrays.copyOfRange(bytes, from, from + length))
        + '"';
  }

  private static String text(JsonOutput out) {
    return new String(out.rendered().toByteArray(), StandardCharsets.US_ASCII);
  }
}
