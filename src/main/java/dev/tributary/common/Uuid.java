package dev.tributary.common;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Random;

/**
 * A 128-bit id printed as 22 characters of URL-safe base64, as Kafka prints topic ids and cluster
 * ids. Built from an injected {@link Random} so tests are deterministic.
 */
public record Uuid(long mostSignificantBits, long leastSignificantBits) {
  public static Uuid random(Random random) {
    return new Uuid(random.nextLong(), random.nextLong());
  }

  public static Uuid parse(String text) {
    byte[] bytes = Base64.getUrlDecoder().decode(text);
    if (bytes.length != 16) {
      throw new IllegalArgumentException("not a 16-byte id: " + text);
    }
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    return new Uuid(buffer.getLong(), buffer.getLong());
  }

  @Override
  public String toString() {
    ByteBuffer buffer =
        ByteBuffer.allocate(16).putLong(mostSignificantBits).putLong(leastSignificantBits);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(buffer.array());
  }
}
