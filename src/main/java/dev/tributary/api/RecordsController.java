package dev.tributary.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tributary.auth.RequestContexts;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.TimestampAndOffset;
import dev.tributary.replication.FetchParams;
import dev.tributary.replication.FetchPartitionData;
import dev.tributary.replication.PartitionFetch;
import dev.tributary.server.FetchService;
import dev.tributary.server.MetadataCache;
import dev.tributary.server.OffsetsService;
import dev.tributary.server.RequestContext;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
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

  /** {@code max_bytes} when the request does not say: Kafka's max.partition.fetch.bytes default. */
  static final String DEFAULT_MAX_BYTES = "1048576";

  /** The longest long poll we accept, in milliseconds. */
  static final long MAX_TIMEOUT_MS = 60_000;

  private final MetadataCache metadata;
  private final FetchService fetch;
  private final OffsetsService offsets;
  private final RequestContexts contexts;
  private final RecordJsonWriter writer;
  private final LeaderProxy leaderProxy;

  RecordsController(
      MetadataCache metadata,
      FetchService fetch,
      OffsetsService offsets,
      RequestContexts contexts,
      JsonMapper json,
      LeaderProxy leaderProxy) {
    this.metadata = metadata;
    this.fetch = fetch;
    this.offsets = offsets;
    this.contexts = contexts;
    this.leaderProxy = leaderProxy;
    this.writer = new RecordJsonWriter(json);
  }

  /** Answers now when the future is already complete ({@link Answers#nowIfDone}). */
  @GetMapping("/topics/{topic}/partitions/{partition}/records")
  Object records(
      @PathVariable String topic,
      @PathVariable int partition,
      @RequestParam(required = false) Long offset,
      @RequestParam(name = "max_bytes", defaultValue = DEFAULT_MAX_BYTES) int maxBytes,
      @RequestParam(defaultValue = "0") long timeout,
      @RequestHeader(value = HttpHeaders.ACCEPT, required = false) String accept,
      HttpServletRequest request) {
    return Answers.nowIfDone(
        recordsAnswer(topic, partition, offset, maxBytes, timeout, accept, request));
  }

  /**
   * The read both paths answer with: this controller's (Spring MVC) and {@link
   * RecordEndpointsFilter}'s. Throws on a bad request (the caller maps it as {@link
   * ApiExceptionHandler} does).
   */
  CompletableFuture<ResponseEntity<?>> recordsAnswer(
      String topic,
      int partition,
      Long offset,
      int maxBytes,
      long timeout,
      String accept,
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
    RequestContext context = contexts.of(request);
    long from;
    if (offset != null) {
      from = offset;
    } else {
      try {
        from = offsets.partitionOffsets(context, tp).logStartOffset();
      } catch (NotLeaderOrFollowerException e) {
        return forward(request, e);
      }
    }
    int fetchMaxBytes = Math.min(maxBytes, MAX_FETCH_BYTES);
    return fetch
        .fetch(
            context,
            FetchParams.consumer(Math.min(timeout, MAX_TIMEOUT_MS), 1, fetchMaxBytes),
            List.of(PartitionFetch.of(tp, from, fetchMaxBytes)))
        .thenCompose(
            answers -> {
              FetchPartitionData fetched = answers.get(0);
              if (fetched.error() == Errors.NOT_LEADER_OR_FOLLOWER && fetched.leaderId() >= 0) {
                return forward(
                    request,
                    new NotLeaderOrFollowerException(
                        fetched.errorMessage(), OptionalInt.of(fetched.leaderId())));
              }
              if (fetched.error() != Errors.NONE) {
                throw fetched.error().exception(fetched.errorMessage());
              }
              RecordJsonWriter.Rendered rendered =
                  writer.render(topic, partition, fetched.records(), from, format);
              return CompletableFuture.<ResponseEntity<?>>completedFuture(
                  ResponseEntity.ok()
                      .contentType(MediaType.parseMediaType(format.mediaType))
                      .header("X-Tributary-High-Watermark", Long.toString(fetched.highWatermark()))
                      .body(rendered.body()));
            });
  }

  private CompletableFuture<ResponseEntity<?>> forward(
      HttpServletRequest request, NotLeaderOrFollowerException e) {
    return leaderProxy.forward(request, e).thenApply(answer -> answer);
  }

  @GetMapping("/topics/{topic}/partitions/{partition}/offsets")
  CompletableFuture<? extends ResponseEntity<?>> offsets(
      @PathVariable String topic,
      @PathVariable int partition,
      @RequestParam(required = false) Long timestamp,
      HttpServletRequest request) {
    TopicPartition tp = topicPartition(topic, partition);
    RequestContext context = contexts.of(request);
    OffsetsService.PartitionOffsets found;
    try {
      found = offsets.partitionOffsets(context, tp);
    } catch (NotLeaderOrFollowerException e) {
      return leaderProxy.forward(request, e);
    }
    Offsets answer =
        new Offsets(found.logStartOffset(), found.highWatermark(), found.logEndOffset());
    if (timestamp == null) {
      return CompletableFuture.completedFuture(
          ResponseEntity.ok().contentType(ProduceController.V2_JSON).body(answer));
    }
    if (timestamp < 0) {
      throw RestException.badParameter(
          "timestamp must be epoch milliseconds (>= 0), got " + timestamp);
    }
    Optional<TimestampAndOffset> match = offsets.offsetForTimestamp(context, tp, timestamp);
    return CompletableFuture.completedFuture(
        ResponseEntity.ok()
            .contentType(ProduceController.V2_JSON)
            .body(
                new OffsetForTimestamp(
                    answer.beginningOffset(),
                    answer.endOffset(),
                    answer.logEndOffset(),
                    match.map(TimestampAndOffset::offset).orElse(null),
                    match.map(TimestampAndOffset::timestampMs).orElse(null))));
  }

  /**
   * A negative partition is an unknown partition (404), as on produce and in metadata, not a server
   * error.
   */
  private TopicPartition topicPartition(String topic, int partition) {
    if (partition < 0) {
      int count =
          metadata
              .metadata()
              .topic(topic)
              .map(t -> t.partitionCount())
              .orElseThrow(() -> UnknownTopicOrPartitionException.unknownTopic(topic));
      throw UnknownTopicOrPartitionException.unknownPartition(topic, partition, count);
    }
    return new TopicPartition(topic, partition);
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
