package dev.tributary.transport.http;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.RemoteApiException;
import dev.tributary.log.record.Header;
import dev.tributary.replication.Acks;
import dev.tributary.server.ControllerChannel.Endpoint;
import dev.tributary.server.PartitionForwarder;
import dev.tributary.server.ProduceHandler.RecordOffset;
import dev.tributary.server.ProduceRecord;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Forwards a partition's records to its leader as an ordinary REST Proxy v2 produce in the binary
 * format ({@code POST /topics/{t}/partitions/{p}}), marked with {@link
 * Forwarding#FORWARDED_HEADER}. Asynchronous: no thread waits for the leader's answer.
 */
public final class HttpPartitionForwarder implements PartitionForwarder {
  private final HttpClient http;
  private final PeerUrls urls;
  private final JsonMapper json;
  private final IntFunction<Optional<Endpoint>> endpoints;
  private final int localBrokerId;
  private final Duration timeout;
  private final java.util.function.LongSupplier metadataOffset;
  // The leader authenticates a forwarded produce as a broker by this (client authentication on).
  private final String secret;

  /**
   * @param metadataOffset this broker's applied metadata offset, sent along (see {@link
   *     Forwarding})
   */
  public HttpPartitionForwarder(
      HttpClient http,
      PeerUrls urls,
      JsonMapper json,
      IntFunction<Optional<Endpoint>> endpoints,
      int localBrokerId,
      Duration timeout,
      java.util.function.LongSupplier metadataOffset,
      String secret) {
    this.metadataOffset = metadataOffset;
    this.secret = secret;
    this.http = http;
    this.urls = urls;
    this.json = json;
    this.endpoints = endpoints;
    this.localBrokerId = localBrokerId;
    this.timeout = timeout;
  }

  @Override
  public CompletableFuture<List<RecordOffset>> forward(
      int leaderId, TopicPartition tp, List<ProduceRecord> records, Acks acks) {
    Optional<Endpoint> leader = endpoints.apply(leaderId);
    if (leader.isEmpty()) {
      return CompletableFuture.failedFuture(
          new NotLeaderOrFollowerException(
              "Broker " + leaderId + " leads " + tp + " but its address is unknown"));
    }
    URI uri =
        urls.uri(
            leader.get().host(),
            leader.get().port(),
            "/topics/"
                + URLEncoder.encode(tp.topic(), StandardCharsets.UTF_8)
                + "/partitions/"
                + tp.partition()
                + "?acks="
                + acksParameter(acks));
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .timeout(timeout)
            .header("Content-Type", "application/vnd.kafka.binary.v2+json")
            .header(Forwarding.FORWARDED_HEADER, Integer.toString(localBrokerId))
            .header(Forwarding.METADATA_OFFSET_HEADER, Long.toString(metadataOffset.getAsLong()))
            .header(InternalApi.SECRET_HEADER, secret == null ? "" : secret)
            .POST(HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body(records))))
            .build();
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
        .exceptionally(
            failure -> {
              // Connection refused or timed out: the leader is down but not yet fenced. Retriable.
              throw new RemoteApiException(
                  503,
                  50306,
                  "Broker "
                      + leaderId
                      + " leads "
                      + tp
                      + " but did not answer; retry shortly ("
                      + rootCause(failure)
                      + ")");
            })
        .thenApply(response -> offsets(tp, records.size(), response));
  }

  private static Map<String, Object> body(List<ProduceRecord> records) {
    Base64.Encoder base64 = Base64.getEncoder();
    List<Map<String, Object>> out = new ArrayList<>(records.size());
    for (ProduceRecord record : records) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("key", record.key() == null ? null : base64.encodeToString(record.key()));
      r.put("value", record.value() == null ? null : base64.encodeToString(record.value()));
      if (record.timestampMs() != null) {
        r.put("timestamp", record.timestampMs());
      }
      if (!record.headers().isEmpty()) {
        List<Map<String, Object>> headers = new ArrayList<>();
        for (Header header : record.headers()) {
          Map<String, Object> h = new LinkedHashMap<>();
          h.put("name", header.key());
          h.put("value", header.value() == null ? null : base64.encodeToString(header.value()));
          headers.add(h);
        }
        r.put("headers", headers);
      }
      out.add(r);
    }
    return Map.of("records", out);
  }

  private List<RecordOffset> offsets(TopicPartition tp, int count, HttpResponse<byte[]> response) {
    JsonNode answer = json.readTree(response.body());
    if (response.statusCode() != 200) {
      throw new RemoteApiException(
          response.statusCode(),
          answer.path("error_code").asInt(response.statusCode() * 100),
          answer
              .path("message")
              .asString("the leader of " + tp + " answered HTTP " + response.statusCode()));
    }
    JsonNode offsets = answer.path("offsets");
    if (offsets.size() != count) {
      throw new IllegalStateException(
          "the leader of "
              + tp
              + " answered "
              + offsets.size()
              + " offsets for "
              + count
              + " records");
    }
    List<RecordOffset> result = new ArrayList<>(count);
    for (JsonNode offset : offsets) {
      if (offset.path("error_code").isNull() || offset.path("error_code").isMissingNode()) {
        result.add(new RecordOffset(tp.partition(), offset.path("offset").asLong(), null));
      } else {
        result.add(
            new RecordOffset(
                tp.partition(),
                -1,
                new RemoteApiException(
                    500, offset.path("error_code").asInt(), offset.path("error").asString())));
      }
    }
    return result;
  }

  static String rootCause(Throwable failure) {
    Throwable cause = failure;
    while (cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause.getClass().getSimpleName();
  }

  private static String acksParameter(Acks acks) {
    return switch (acks) {
      case NONE -> "0";
      case LEADER -> "1";
      case ALL -> "all";
    };
  }
}
