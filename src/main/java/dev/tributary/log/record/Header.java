package dev.tributary.log.record;

import java.util.Arrays;
import java.util.Objects;

/**
 * A record header as Kafka defines it: a UTF-8 key (never null) and a value that may be null.
 * Equality compares value bytes. Immutable as long as nobody mutates the array passed in.
 */
public record Header(String key, byte[] value) {
  public Header {
    Objects.requireNonNull(key, "header key");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Header other && key.equals(other.key) && Arrays.equals(value, other.value);
  }

  @Override
  public int hashCode() {
    return 31 * key.hashCode() + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return "Header(" + key + ", " + (value == null ? "null" : value.length + " bytes") + ")";
  }
}
