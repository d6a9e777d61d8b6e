package dev.tributary.log.record;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One record to be written by {@link RecordBatchBuilder}: a CreateTime timestamp in ms, a key and
 * value that may each be null (absent, unlike empty), and headers (never null, possibly empty).
 * Equality compares bytes.
 */
public record SimpleRecord(long timestamp, byte[] key, byte[] value, List<Header> headers) {
  public SimpleRecord {
    headers = List.copyOf(Objects.requireNonNull(headers, "headers"));
  }

  public SimpleRecord(long timestamp, byte[] key, byte[] value) {
    this(timestamp, key, value, List.of());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SimpleRecord other
        && timestamp == other.timestamp
        && Arrays.equals(key, other.key)
        && Arrays.equals(value, other.value)
        && headers.equals(other.headers);
  }

  @Override
  public int hashCode() {
    return Objects.hash(timestamp, Arrays.hashCode(key), Arrays.hashCode(value), headers);
  }

  @Override
  public String toString() {
    return "SimpleRecord(timestamp="
        + timestamp
        + ", key="
        + (key == null ? "null" : key.length + " bytes")
        + ", value="
        + (value == null ? "null" : value.length + " bytes")
        + ", headers="
        + headers
        + ")";
  }
}
