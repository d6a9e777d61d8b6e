package dev.tributary.config;

import dev.tributary.common.TopicPartition;
import dev.tributary.replication.Partition;
import dev.tributary.server.BrokerServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.function.ToDoubleFunction;
import org.springframework.stereotype.Component;

/**
 * Per-partition gauges for Prometheus: log size and segment count, log start/end offsets and high
 * watermark, ISR size, leadership and under-replication, tagged by topic and partition. The set of
 * partitions changes with the metadata, so the rows are re-registered on each housekeeping pass;
 * values are read live at scrape time.
 */
@Component
class PartitionMetrics {
  private final BrokerServer broker;
  private final MultiGauge sizeBytes;
  private final MultiGauge segments;
  private final MultiGauge logStartOffset;
  private final MultiGauge logEndOffset;
  private final MultiGauge highWatermark;
  private final MultiGauge isrSize;
  private final MultiGauge underReplicated;
  private final MultiGauge leader;

  PartitionMetrics(BrokerServer broker, MeterRegistry registry) {
    this.broker = broker;
    this.sizeBytes =
        gauge(registry, "tributary.log.size", "bytes", "Bytes of the partition's log on disk");
    this.segments =
        gauge(registry, "tributary.log.segments", null, "Segments in the partition's log");
    this.logStartOffset =
        gauge(registry, "tributary.log.start.offset", null, "First offset still in the log");
    this.logEndOffset =
        gauge(registry, "tributary.log.end.offset", null, "Offset the next record will get");
    this.highWatermark =
        gauge(registry, "tributary.partition.high.watermark", null, "Committed offset bound");
    this.isrSize =
        gauge(registry, "tributary.partition.isr.size", null, "In-sync replicas (committed ISR)");
    this.underReplicated =
        gauge(
            registry,
            "tributary.partition.under.replicated",
            null,
            "1 if this broker leads the partition and its ISR is smaller than its replica set (Kafka's UnderReplicatedPartitions)");
    this.leader =
        gauge(registry, "tributary.partition.leader", null, "1 if this broker leads the partition");
  }

  private static MultiGauge gauge(
      MeterRegistry registry, String name, String unit, String description) {
    MultiGauge.Builder builder = MultiGauge.builder(name).description(description);
    if (unit != null) {
      builder.baseUnit(unit);
    }
    return builder.register(registry);
  }

  /** Re-registers one row per hosted partition; rows of partitions that are gone disappear. */
  void refresh() {
    if (!broker.isReady()) {
      return;
    }
    List<Partition> partitions = List.copyOf(broker.replicaManager().partitions());
    register(sizeBytes, partitions, p -> p.log().size());
    register(segments, partitions, p -> p.log().numberOfSegments());
    register(logStartOffset, partitions, Partition::logStartOffset);
    register(logEndOffset, partitions, Partition::logEndOffset);
    register(highWatermark, partitions, Partition::highWatermark);
    register(isrSize, partitions, p -> p.isr().size());
    register(
        underReplicated,
        partitions,
        p -> p.isLeader() && p.isr().size() < p.replicas().size() ? 1 : 0);
    register(leader, partitions, p -> p.isLeader() ? 1 : 0);
  }

  /**
   * Rows look the partition up by name at scrape time rather than holding a {@link Partition}, so
   * an existing row never needs replacing (a topic re-created under the same name gets a new
   * Partition object): registering with {@code overwrite=false} only adds new rows and drops gone
   * ones. Overwriting every refresh removed and re-added each meter, and a scrape in between could
   * see the same labels twice.
   */
  private void register(
      MultiGauge gauge, List<Partition> partitions, ToDoubleFunction<Partition> value) {
    gauge.register(
        partitions.stream()
            .map(
                p -> {
                  TopicPartition tp = p.topicPartition();
                  return MultiGauge.Row.of(
                      Tags.of("topic", tp.topic(), "partition", Integer.toString(tp.partition())),
                      () -> current(tp).map(value::applyAsDouble).orElse(Double.NaN));
                })
            .toList(),
        false);
  }

  private java.util.Optional<Partition> current(TopicPartition tp) {
    return broker.isReady() ? broker.replicaManager().partition(tp) : java.util.Optional.empty();
  }
}
