package dev.tributary.transport.http;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.BrokerNotRegisteredException;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.FencedLeaderEpochException;
import dev.tributary.common.errors.IneligibleReplicaException;
import dev.tributary.common.errors.InvalidRegistrationException;
import dev.tributary.common.errors.InvalidUpdateVersionException;
import dev.tributary.common.errors.NotControllerException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.RemoteApiException;
import dev.tributary.common.errors.StaleBrokerEpochException;
import dev.tributary.common.errors.TopicExistsException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.metadata.ConfigChange;
import dev.tributary.metadata.NewPartitions;
import dev.tributary.metadata.NewTopic;
import dev.tributary.metadata.ProducerIdsBlock;
import dev.tributary.replication.Truncation;
import dev.tributary.server.ControllerChannel;
import dev.tributary.server.ControllerUnreachableException;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link ControllerChannel} over HTTP/JSON to the controller's {@code /internal/v1/controller}
 * endpoints, with the cluster's shared secret in {@value #SECRET_HEADER}. Error answers come back
 * as the core's exceptions; see {@link InternalApi} for the paths and the error codes it maps.
 */
public final class HttpControllerChannel implements ControllerChannel {
  public static final String SECRET_HEADER = InternalApi.SECRET_HEADER;

  private final HttpClient http;
  private final PeerUrls urls;
  private final JsonMapper json;
  private final String secret;
  private final Duration timeout;

  /** For registration and heartbeats: shorter than the broker session, see the constructor. */
  private final Duration heartbeatTimeout;

  public HttpControllerChannel(
      HttpClient http, PeerUrls urls, JsonMapper json, String secret, Duration timeout) {
    this(http, urls, json, secret, timeout, timeout);
  }

  /**
   * @param heartbeatTimeout for registration and heartbeats. It must be well under the broker
   *     session timeout: heartbeats are sent one at a time, so one stuck on a controller that froze
   *     (SIGSTOP) would otherwise keep this broker from reaching the new controller until its
   *     session there ran out, and the new controller would fence every broker at once.
   */
  public HttpControllerChannel(
      HttpClient http,
      PeerUrls urls,
      JsonMapper json,
      String secret,
      Duration timeout,
      Duration heartbeatTimeout) {
    this.heartbeatTimeout = heartbeatTimeout;
    this.http = http;
    this.urls = urls;
    this.json = json;
    this.secret = secret;
    this.timeout = timeout;
  }

  @Override
  public RegistrationResult register(Endpoint controller, BrokerRegistration registration) {
    JsonNode answer =
        call(
            controller,
            "POST",
            InternalApi.REGISTER,
            RegistrationWire.toJson(registration),
            heartbeatTimeout);
    return new RegistrationResult(
        answer.path("broker_epoch").asLong(), answer.path("metadata_offset").asLong());
  }

  @Override
  public HeartbeatResult heartbeat(Endpoint controller, BrokerHeartbeat heartbeat) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("broker_id", heartbeat.brokerId());
    body.put("broker_epoch", heartbeat.brokerEpoch());
    body.put("metadata_offset", heartbeat.metadataOffset());
    body.put("log_dir_offline", heartbeat.logDirOffline());
    JsonNode answer = call(controller, "POST", InternalApi.HEARTBEAT, body, heartbeatTimeout);
    return new HeartbeatResult(
        answer.path("fenced").asBoolean(), answer.path("metadata_offset").asLong());
  }

  @Override
  public AdminResult createTopic(Endpoint controller, NewTopic topic, boolean validateOnly) {
    return admin(
        call(controller, "POST", InternalApi.TOPICS, AdminWire.newTopic(topic, validateOnly)));
  }

  @Override
  public AdminResult createPartitions(
      Endpoint controller, NewPartitions request, boolean validateOnly) {
    return admin(
        call(
            controller,
            "POST",
            InternalApi.topic(encode(request.topic())) + "/partitions",
            AdminWire.newPartitions(request, validateOnly)));
  }

  @Override
  public AdminResult deleteTopic(Endpoint controller, String name) {
    return admin(call(controller, "DELETE", InternalApi.topic(encode(name)), null));
  }

  @Override
  public AdminResult alterBrokerConfigs(
      Endpoint controller, int brokerId, List<ConfigChange> changes, boolean validateOnly) {
    return admin(
        call(
            controller,
            "POST",
            InternalApi.broker(brokerId) + "/configs",
            AdminWire.configChanges(changes, validateOnly)));
  }

  @Override
  public AdminResult unregisterBroker(Endpoint controller, int brokerId) {
    return admin(call(controller, "DELETE", InternalApi.broker(brokerId), null));
  }

  @Override
  public AdminResult alterConfigs(
      Endpoint controller, String name, List<ConfigChange> changes, boolean validateOnly) {
    return admin(
        call(
            controller,
            "POST",
            InternalApi.topic(encode(name)) + "/configs",
            AdminWire.configChanges(changes, validateOnly)));
  }

  @Override
  public ElectionResult electPreferredLeaders(
      Endpoint controller, List<TopicPartition> partitions) {
    return AdminWire.electionResult(
        call(controller, "POST", InternalApi.ELECT_LEADERS, AdminWire.election(partitions)));
  }

  @Override
  public ReassignmentResult alterPartitionReassignments(
      Endpoint controller, Map<TopicPartition, java.util.Optional<List<Integer>>> targets) {
    return AdminWire.reassignmentResult(
        call(controller, "POST", InternalApi.REASSIGNMENTS, AdminWire.reassignments(targets)));
  }

  @Override
  public AdminResult alterSecurity(
      Endpoint controller, dev.tributary.security.SecurityChange change) {
    return admin(call(controller, "POST", InternalApi.SECURITY, SecurityChangeWire.toJson(change)));
  }

  @Override
  public AdminResult alterPartition(Endpoint controller, AlterPartition request) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("topic_id", request.topicId());
    body.put("topic", request.topic());
    body.put("partition", request.partition());
    body.put("leader_id", request.leaderId());
    body.put("leader_epoch", request.leaderEpoch());
    body.put("partition_epoch", request.partitionEpoch());
    body.put("new_isr", request.newIsr());
    Map<String, Long> epochs = new LinkedHashMap<>();
    request.brokerEpochs().forEach((id, epoch) -> epochs.put(String.valueOf(id), epoch));
    body.put("broker_epochs", epochs);
    body.put("reason", request.reason());
    return admin(call(controller, "POST", InternalApi.ALTER_PARTITION, body, heartbeatTimeout));
  }

  @Override
  public AdminResult fenceBroker(Endpoint controller, int brokerId, long brokerEpoch) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("broker_id", brokerId);
    body.put("broker_epoch", brokerEpoch);
    return admin(call(controller, "POST", InternalApi.FENCE_BROKER, body, heartbeatTimeout));
  }

  @Override
  public ProducerIdsBlock allocateProducerIds(Endpoint controller, int brokerId, long brokerEpoch) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("broker_id", brokerId);
    body.put("broker_epoch", brokerEpoch);
    JsonNode answer = call(controller, "POST", InternalApi.ALLOCATE_PRODUCER_IDS, body);
    try {
      return new ProducerIdsBlock(
          brokerId,
          answer.path("producer_id_start").asLong(-1),
          answer.path("producer_id_len").asInt(-1));
    } catch (IllegalArgumentException e) {
      throw new ControllerUnreachableException(
          "controller " + controller.brokerId() + " answered an invalid producer id block", e);
    }
  }

  @Override
  public void reportUnreachable(Endpoint controller, int reporterId, int brokerId) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("reporter_id", reporterId);
    body.put("broker_id", brokerId);
    call(controller, "POST", InternalApi.BROKER_UNREACHABLE, body, heartbeatTimeout);
  }

  @Override
  public void reportTruncation(Endpoint controller, Truncation truncation) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("topic", truncation.topicPartition().topic());
    body.put("partition", truncation.topicPartition().partition());
    body.put("replica_id", truncation.replicaId());
    body.put("leader_id", truncation.leaderId());
    body.put("leader_epoch", truncation.leaderEpoch());
    body.put("truncated_to", truncation.truncatedTo());
    body.put("previous_log_end_offset", truncation.previousLogEndOffset());
    body.put("high_watermark", truncation.highWatermark());
    call(controller, "POST", InternalApi.REPLICA_TRUNCATED, body);
  }

  @Override
  public void reportFault(Endpoint controller, FaultReport fault) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("broker_id", fault.brokerId());
    body.put("text", fault.text());
    body.put("how", fault.how());
    call(controller, "POST", InternalApi.FAULT_INJECTED, body, heartbeatTimeout);
  }

  private static AdminResult admin(JsonNode answer) {
    return new AdminResult(answer.path("metadata_offset").asLong());
  }

  private JsonNode call(Endpoint controller, String method, String path, Object body) {
    return call(controller, method, path, body, timeout);
  }

  private JsonNode call(
      Endpoint controller, String method, String path, Object body, Duration callTimeout) {
    URI uri = urls.uri(controller.host(), controller.port(), path);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(callTimeout)
            .header(SECRET_HEADER, secret)
            .header("Content-Type", "application/json");
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body)));
    HttpResponse<byte[]> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new ControllerUnreachableException(
          "controller "
              + controller.brokerId()
              + " at "
              + uri.getAuthority()
              + " did not answer: "
              + dev.tributary.common.NetworkFailures.describe(e),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ControllerUnreachableException("interrupted calling the controller", e);
    }
    JsonNode answer;
    try {
      answer =
          response.body().length == 0 ? json.createObjectNode() : json.readTree(response.body());
    } catch (JacksonException e) {
      throw new ControllerUnreachableException(
          "controller "
              + controller.brokerId()
              + " answered "
              + response.statusCode()
              + " with a non-JSON body",
          e);
    }
    if (response.statusCode() / 100 == 2) {
      return answer;
    }
    int errorCode = answer.path("error_code").asInt(response.statusCode() * 100);
    String message = answer.path("message").asString("HTTP " + response.statusCode());
    throw switch (errorCode) {
      case InternalApi.NOT_CONTROLLER -> new NotControllerException(message);
      case InternalApi.STALE_BROKER_EPOCH -> new StaleBrokerEpochException(message);
      case InternalApi.BROKER_NOT_REGISTERED -> new BrokerNotRegisteredException(message);
      case InternalApi.INVALID_REGISTRATION -> new InvalidRegistrationException(message);
      case InternalApi.TOPIC_EXISTS -> new TopicExistsException(message);
      case InternalApi.FENCED_LEADER_EPOCH -> new FencedLeaderEpochException(message);
      case InternalApi.INVALID_UPDATE_VERSION -> new InvalidUpdateVersionException(message);
      case InternalApi.INELIGIBLE_REPLICA -> new IneligibleReplicaException(message);
      case InternalApi.NOT_LEADER_OR_FOLLOWER -> new NotLeaderOrFollowerException(message);
      case InternalApi.UNKNOWN_TOPIC -> UnknownTopicOrPartitionException.unknownTopic(message);
      default ->
          answer.has(InternalApi.KAFKA_ERROR_CODE)
              ? kafkaError(answer.path(InternalApi.KAFKA_ERROR_CODE).asInt(), message)
              : new RemoteApiException(response.statusCode(), errorCode, message);
    };
  }

  /**
   * The controller's refusal by its Kafka code (INVALID_REPLICATION_FACTOR, INVALID_CONFIG, ...),
   * so that a forwarded admin request fails with the same code as a local one.
   */
  private static RuntimeException kafkaError(int code, String message) {
    Errors error = Errors.forCode((short) code);
    return error == Errors.NONE || error == Errors.UNKNOWN_SERVER_ERROR
        ? new RemoteApiException(500, 50001, message)
        : error.exception(message);
  }

  private static String encode(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
