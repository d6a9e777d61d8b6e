package dev.tributary.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.TimestampAndOffset;
import dev.tributary.replication.Partition;
import dev.tributary.server.BrokerServer;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * Stateless reads, as Redpanda's HTTP proxy offers them: {@code GET
 * /topics/{t}/partitions/{p}/records} (long-polls up to {@code timeout} ms when nothing is
 * committed past {@code offset}) and the partition's offsets, including a lookup by timestamp.
 */
@RestController
class RecordsController {
  /** Kafka's fetch.max.bytes default; a larger max_bytes is clamped to it. */
  static final int MAX_FETCH_BYTES = 52_428_800;

  /** The longest long poll we accept, in milliseconds. */
  static final long MAX_TIMEOUT_MS = 60_000;

  private final BrokerServer broker;
  private final RecordJsonWriter writer;
  private final TopicMeters meters;
  private final LeaderProxy leaderProxy;

  RecordsController(
      BrokerServer broker, JsonMapper json, TopicMeters meters, LeaderProxy leaderProxy) {
    this.broker = broker;
    this.leaderProxy = leaderProxy;
    this.writer = new RecordJsonWriter(json);
    this.meters = meters;
  }

  @GetMapping("/topics/{topic}/partitions/{partition}/records")
  CompletableFuture<ResponseEntity<byte[]>> records(
      @PathVariable String topic,
      @PathVariable int partition,
      @RequestParam(required = false) Long offset,
      @RequestParam(name = "max_bytes", defaultValue = "1048576") int maxBytes,
      @RequestParam(defaultValue = "0") long timeout,
      @RequestHeader(value = HttpHeaders.ACCEPT, required = false) String accept,
      HttpServletRequest request) {
    if (maxBytes < 1) {
      throw RestException.badParameter("max_bytes must be at least 1, got " + maxBytes);
    }
    if (timeout < 0) {
      throw RestException.badParameter("timeout must be >= 0 milliseconds, got " + timeout);
    }
    if (offset != null && offset < 0) {
      throw RestException.badParameter("offset must be >= 0, got " + offset);
    }
    EmbeddedFormat format = EmbeddedFormat.ofAccept(accept);
    TopicPartition tp = topicPartition(topic, partition);
    Partition leader;
    try {
      leader = broker.replicaManager().leaderPartition(tp);
    } catch (NotLeaderOrFollowerException e) {
      return leaderProxy.forward(request, e);
    }
    long from = offset == null ? leader.logStartOffset() : offset;
    return broker
        .replicaManager()
        .fetch(leader, from, Math.min(maxBytes, MAX_FETCH_BYTES), Math.min(timeout, MAX_TIMEOUT_MS))
        .thenApply(
            fetched -> {
              RecordJsonWriter.Rendered rendered =
                  writer.render(topic, partition, fetched.records(), from, format);
              TopicMeters.Counters counters = meters.fetch(topic);
              counters.records().increment(rendered.recordCount());
              counters.bytes().increment(fetched.records().remaining());
              return ResponseEntity.ok()
                  .contentType(MediaType.parseMediaType(format.mediaType))
                  .header("X-Tributary-High-Watermark", Long.toString(fetched.highWatermark()))
                  .body(rendered.body());
            });
  }

  @GetMapping("/topics/{topic}/partitions/{partition}/offsets")
  CompletableFuture<? extends ResponseEntity<?>> offsets(
      @PathVariable String topic,
      @PathVariable int partition,
      @RequestParam(required = false) Long timestamp,
      HttpServletRequest request) {
    Partition leader;
    try {
      leader = broker.replicaManager().leaderPartition(topicPartition(topic, partition));
    } catch (NotLeaderOrFollowerException e) {
      return leaderProxy.forward(request, e);
    }
    return CompletableFuture.completedFuture(offsetsOf(leader, timestamp));
  }

  /**
   * A negative partition is an unknown partition (404), as on produce and in metadata, not a server
   * error.
   */
  private TopicPartition topicPartition(String topic, int partition) {
    if (partition < 0) {
      int count =
          broker
              .metadata()
              .topic(topic)
              .map(t -> t.partitionCount())
              .orElseThrow(() -> UnknownTopicOrPartitionException.unknownTopic(topic));
      throw UnknownTopicOrPartitionException.unknownPartition(topic, partition, count);
    }
    return new TopicPartition(topic, partition);
  }

  private ResponseEntity<?> offsetsOf(Partition leader, Long timestamp) {
    long highWatermark = leader.highWatermark();
    Offsets offsets = new Offsets(leader.logStartOffset(), highWatermark, leader.logEndOffset());
    if (timestamp == null) {
      return ResponseEntity.ok().contentType(ProduceController.V2_JSON).body(offsets);
    }
    if (timestamp < 0) {
      throw RestException.badParameter(
          "timestamp must be epoch milliseconds (>= 0), got " + timestamp);
    }
    Optional<TimestampAndOffset> match =
        leader.log().offsetForTimestamp(timestamp).filter(found -> found.offset() < highWatermark);
    return ResponseEntity.ok()
        .contentType(ProduceController.V2_JSON)
        .body(
            new OffsetForTimestamp(
                offsets.beginningOffset(),
                offsets.endOffset(),
                offsets.logEndOffset(),
                match.map(TimestampAndOffset::offset).orElse(null),
                match.map(TimestampAndOffset::timestampMs).orElse(null)));
  }

  /**
   * A partition's offsets. {@code end_offset} is what consumers can read up to (the high
   * watermark), as in REST Proxy; {@code log_end_offset} may be ahead of it while replicas catch
   * up.
   */
  record Offsets(
      @JsonProperty("beginning_offset") long beginningOffset,
      @JsonProperty("end_offset") long endOffset,
      @JsonProperty("log_end_offset") long logEndOffset) {}

  /**
   * Offsets plus a timestamp lookup (Kafka's ListOffsets): the first committed offset whose
   * timestamp is at or after the one asked for, and that record's timestamp; both null when there
   * is none.
   */
  record OffsetForTimestamp(
      @JsonProperty("beginning_offset") long beginningOffset,
      @JsonProperty("end_offset") long endOffset,
      @JsonProperty("log_end_offset") long logEndOffset,
      @JsonProperty("offset") Long offset,
      @JsonProperty("timestamp") Long timestamp) {}
}
