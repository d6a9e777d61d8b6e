package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import java.util.Map;

/**
 * One broker's load as it measured it itself, for the balancer ({@link BalanceService}): what
 * {@link BrokerLoadService} answers locally and {@link PeerLoads} fetches from the other brokers.
 *
 * @param brokerId the broker that measured it
 * @param sizeBytes each local replica's log size (the bytes of its segments)
 * @param bytesInPerSec each partition this broker leads: bytes appended by produce per second over
 *     the last ~10 s, as stored (after compression, with offsets assigned); partitions it does not
 *     lead are absent
 */
public record BrokerLoadReport(
    int brokerId, Map<TopicPartition, Long> sizeBytes, Map<TopicPartition, Double> bytesInPerSec) {
  public BrokerLoadReport {
    sizeBytes.forEach(
        (tp, size) -> {
          if (size == null || size < 0) {
            throw new IllegalArgumentException("size of " + tp + " is " + size);
          }
        });
    bytesInPerSec.forEach(
        (tp, rate) -> {
          if (rate == null || !Double.isFinite(rate) || rate < 0) {
            throw new IllegalArgumentException("bytes-in/s of " + tp + " is " + rate);
          }
        });
    sizeBytes = Map.copyOf(sizeBytes);
    bytesInPerSec = Map.copyOf(bytesInPerSec);
  }
}
