package dev.tributary.transport.http;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.LeaderNotAvailableException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.RemoteApiException;
import dev.tributary.consumer.PartitionReader;
import dev.tributary.group.CoordinatorApi;
import dev.tributary.group.GroupError;
import dev.tributary.group.OffsetAndMetadata;
import dev.tributary.log.OffsetOutOfRangeException;
import dev.tributary.server.ControllerChannel.Endpoint;
import dev.tributary.server.GroupTransport;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The group calls and consumer reads one broker makes on another, over the internal HTTP API
 * ({@link GroupWire}), asynchronously (no thread waits on the network), with the cluster secret.
 * Any failure to get an answer completes the future exceptionally; the router turns that into
 * COORDINATOR_NOT_AVAILABLE and the member retries.
 */
public final class HttpGroupTransport implements GroupTransport {
  private final HttpClient http;
  private final PeerUrls urls;
  private final JsonMapper json;
  private final String secret;
  private final Duration timeout;

  public HttpGroupTransport(
      HttpClient http, PeerUrls urls, JsonMapper json, String secret, Duration timeout) {
    this.http = http;
    this.urls = urls;
    this.json = json;
    this.secret = secret;
    this.timeout = timeout;
  }

  @Override
  public CoordinatorApi coordinatorAt(Endpoint endpoint) {
    return new RemoteCoordinator(endpoint);
  }

  @Override
  public PartitionReader readerAt(Endpoint endpoint) {
    return new RemoteReader(endpoint);
  }

  private URI uri(Endpoint endpoint, String pathAndQuery) {
    return urls.uri(endpoint.host(), endpoint.port(), pathAndQuery);
  }

  private <T> CompletableFuture<T> post(
      Endpoint endpoint, String path, Object body, Class<T> answer, Duration callTimeout) {
    HttpRequest request =
        HttpRequest.newBuilder(uri(endpoint, path))
            .timeout(callTimeout)
            .header(InternalApi.SECRET_HEADER, secret)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body)))
            .build();
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
        .thenApply(
            response -> {
              if (response.statusCode() != 200) {
                throw remoteError(endpoint, response);
              }
              return json.readValue(response.body(), answer);
            });
  }

  private RuntimeException remoteError(Endpoint endpoint, HttpResponse<byte[]> response) {
    int errorCode = response.statusCode() * 100;
    String message = "broker " + endpoint.brokerId() + " answered " + response.statusCode();
    try {
      JsonNode body = json.readTree(response.body());
      errorCode = body.path("error_code").asInt(errorCode);
      message = body.path("message").asString(message);
    } catch (RuntimeException notJson) {
      // keep the status-derived code
    }
    return switch (errorCode) {
      case 41601 -> new OffsetOutOfRangeException(message);
      case InternalApi.NOT_LEADER_OR_FOLLOWER ->
          new NotLeaderOrFollowerException(message, java.util.OptionalInt.empty());
      case 50304 -> new LeaderNotAvailableException(message);
      default -> new RemoteApiException(response.statusCode(), errorCode, message);
    };
  }

  /** A broker's coordinator, one HTTP call per protocol call. */
  private final class RemoteCoordinator implements CoordinatorApi {
    private final Endpoint endpoint;

    RemoteCoordinator(Endpoint endpoint) {
      this.endpoint = endpoint;
    }

    @Override
    public CompletableFuture<JoinResult> joinGroup(JoinRequest request) {
      // A join waits for the rest of the group, up to the rebalance timeout.
      return post(
          endpoint,
          GroupWire.JOIN,
          request,
          JoinResult.class,
          timeout.plusMillis(request.rebalanceTimeoutMs()));
    }

    @Override
    public CompletableFuture<SyncResult> syncGroup(SyncRequest request) {
      return post(endpoint, GroupWire.SYNC, request, SyncResult.class, timeout.multipliedBy(2));
    }

    @Override
    public CompletableFuture<GroupError> heartbeat(
        String groupId, String memberId, int generationId) {
      return post(
              endpoint,
              GroupWire.HEARTBEAT,
              new GroupWire.MemberCall(groupId, memberId, generationId, null),
              GroupWire.ErrorAnswer.class,
              timeout)
          .thenApply(GroupWire.ErrorAnswer::error);
    }

    @Override
    public CompletableFuture<GroupError> leaveGroup(
        String groupId, String memberId, String reason) {
      return post(
              endpoint,
              GroupWire.LEAVE,
              new GroupWire.MemberCall(groupId, memberId, -1, reason),
              GroupWire.ErrorAnswer.class,
              timeout)
          .thenApply(GroupWire.ErrorAnswer::error);
    }

    @Override
    public CompletableFuture<GroupError> commitOffsets(
        String groupId,
        String memberId,
        int generationId,
        Map<TopicPartition, OffsetAndMetadata> offsets) {
      return post(
              endpoint,
              GroupWire.COMMIT,
              new GroupWire.CommitCall(groupId, memberId, generationId, GroupWire.toWire(offsets)),
              GroupWire.ErrorAnswer.class,
              timeout.multipliedBy(2))
          .thenApply(GroupWire.ErrorAnswer::error);
    }

    @Override
    public CompletableFuture<OffsetFetchResult> fetchOffsets(
        String groupId, List<TopicPartition> partitions) {
      return post(
              endpoint,
              GroupWire.FETCH_OFFSETS,
              new GroupWire.FetchOffsetsCall(groupId, GroupWire.partitionsToWire(partitions)),
              GroupWire.FetchOffsetsAnswer.class,
              timeout)
          .thenApply(a -> new OffsetFetchResult(a.error(), GroupWire.fromWire(a.offsets())));
    }

    @Override
    public CompletableFuture<DescribeResult> describeGroup(String groupId) {
      return post(
          endpoint,
          GroupWire.DESCRIBE,
          new GroupWire.GroupCall(groupId),
          DescribeResult.class,
          timeout);
    }

    @Override
    public CompletableFuture<List<GroupListing>> listGroups() {
      return post(
              endpoint, GroupWire.LIST, new GroupWire.GroupCall(""), GroupListing[].class, timeout)
          .thenApply(List::of);
    }
  }

  /** Reads from a broker's own leaders. */
  private final class RemoteReader implements PartitionReader {
    private final Endpoint endpoint;

    RemoteReader(Endpoint endpoint) {
      this.endpoint = endpoint;
    }

    private String query(TopicPartition tp) {
      return "?topic="
          + URLEncoder.encode(tp.topic(), StandardCharsets.UTF_8)
          + "&partition="
          + tp.partition();
    }

    @Override
    public CompletableFuture<Fetched> fetch(
        TopicPartition tp, long offset, int maxBytes, long maxWaitMs) {
      HttpRequest request =
          HttpRequest.newBuilder(
                  uri(
                      endpoint,
                      GroupWire.CONSUMER_FETCH
                          + query(tp)
                          + "&offset="
                          + offset
                          + "&max_bytes="
                          + maxBytes
                          + "&max_wait_ms="
                          + maxWaitMs))
              .timeout(timeout.plusMillis(maxWaitMs))
              .header(InternalApi.SECRET_HEADER, secret)
              .GET()
              .build();
      return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
          .thenApply(
              response -> {
                if (response.statusCode() != 200) {
                  throw remoteError(endpoint, response);
                }
                long hw =
                    response.headers().firstValueAsLong(GroupWire.HIGH_WATERMARK_HEADER).orElse(-1);
                long logStart =
                    response
                        .headers()
                        .firstValueAsLong(GroupWire.LOG_START_OFFSET_HEADER)
                        .orElse(-1);
                return new Fetched(ByteBuffer.wrap(response.body()), hw, logStart);
              });
    }

    @Override
    public CompletableFuture<Offsets> offsets(TopicPartition tp) {
      HttpRequest request =
          HttpRequest.newBuilder(uri(endpoint, GroupWire.CONSUMER_OFFSETS + query(tp)))
              .timeout(timeout)
              .header(InternalApi.SECRET_HEADER, secret)
              .GET()
              .build();
      return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
          .thenApply(
              response -> {
                if (response.statusCode() != 200) {
                  throw remoteError(endpoint, response);
                }
                GroupWire.PartitionOffsets o =
                    json.readValue(response.body(), GroupWire.PartitionOffsets.class);
                return new Offsets(o.logStartOffset(), o.highWatermark());
              });
    }
  }
}
