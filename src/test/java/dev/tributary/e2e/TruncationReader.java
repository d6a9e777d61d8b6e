package dev.tributary.e2e;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A Kafka consumer of one partition, as an application would run it with {@code
 * auto.offset.reset=none}: it reads to the end, and when the partition's log is later truncated
 * below its position (an unclean leader election), the client must notice through the leader epoch
 * of what it fetched (KIP-320: OffsetsForLeaderEpoch against the new leader) and fail its poll with
 * {@link LogTruncationException}, rather than go on reading other records at offsets it has already
 * passed, or skip any.
 */
final class TruncationReader implements AutoCloseable {
  private final KafkaConsumer<String, String> consumer;
  private final TopicPartition tp;

  TruncationReader(KafkaClients kafka, String topic, int partition) {
    Properties configs = kafka.configs();
    configs.put("auto.offset.reset", "none");
    configs.put("client.id", "truncation-reader");
    this.consumer =
        new KafkaConsumer<>(configs, new StringDeserializer(), new StringDeserializer());
    this.tp = new TopicPartition(topic, partition);
    consumer.assign(List.of(tp));
    consumer.seekToBeginning(List.of(tp));
  }

  /** Reads every record below the partition's high watermark as it is now; returns the position. */
  long readToEnd() {
    long end = consumer.endOffsets(List.of(tp)).get(tp);
    await("the reader at " + tp + "'s end offset " + end)
        .atMost(KafkaClients.READ_TIMEOUT)
        .pollInSameThread()
        .pollInterval(Duration.ZERO)
        .until(
            () -> {
              consumer.poll(Duration.ofMillis(200));
              return consumer.position(tp) >= end;
            });
    return consumer.position(tp);
  }

  /**
   * Polls until the client reports the log truncated under its position; returns the offset it
   * names as where this consumer's log and the leader's diverge.
   */
  long awaitTruncation(Duration within) {
    OffsetAndMetadata[] divergent = new OffsetAndMetadata[1];
    await("the reader of " + tp + " told of the truncation")
        .atMost(within)
        .pollInSameThread()
        .pollInterval(Duration.ZERO)
        .until(
            () -> {
              try {
                consumer.poll(Duration.ofMillis(200));
                return false;
              } catch (LogTruncationException e) {
                divergent[0] = e.divergentOffsets().get(tp);
                return true;
              }
            });
    return divergent[0] == null ? -1 : divergent[0].offset();
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(2));
  }
}
