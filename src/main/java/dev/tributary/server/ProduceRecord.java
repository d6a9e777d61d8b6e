package dev.tributary.server;

import dev.tributary.log.record.Header;
import java.util.List;

/**
 * One record of a produce request, decoded from whatever the client sent (JSON, base64, ...).
 *
 * @param partition the partition the client asked for, or null to let the partitioner choose
 * @param key the key's bytes, or null
 * @param value the value's bytes, or null (a tombstone)
 * @param headers record headers, never null
 * @param timestampMs the client's timestamp, or null for the broker's clock
 */
public record ProduceRecord(
    Integer partition, byte[] key, byte[] value, List<Header> headers, Long timestampMs) {
  public ProduceRecord {
    headers = headers == null ? List.of() : List.copyOf(headers);
  }
}
