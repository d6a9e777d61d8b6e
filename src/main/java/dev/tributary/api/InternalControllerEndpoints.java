package dev.tributary.api;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.RemoteApiException;
import dev.tributary.metadata.ConfigChange;
import dev.tributary.metadata.ProducerIdsBlock;
import dev.tributary.replication.Truncation;
import dev.tributary.server.BrokerServer;
import dev.tributary.server.ControllerChannel;
import dev.tributary.transport.http.AdminWire;
import dev.tributary.transport.http.InternalApi;
import dev.tributary.transport.http.RegistrationWire;
import dev.tributary.transport.http.SecurityChangeWire;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The active controller's HTTP endpoints for other brokers ({@link InternalApi}): registration,
 * heartbeats, producer id blocks and forwarded admin requests. {@link InternalAuthFilter} has
 * already checked the cluster secret. On a broker that is not the controller every call answers
 * NOT_CONTROLLER (421/42102), and the caller looks for the controller again.
 */
@RestController
class InternalControllerEndpoints {
  private final BrokerServer broker;
  private final JsonMapper json;

  InternalControllerEndpoints(BrokerServer broker, JsonMapper json) {
    this.broker = broker;
    this.json = json;
  }

  @PostMapping(InternalApi.REGISTER)
  ResponseEntity<Map<String, Object>> register(@RequestBody byte[] body) {
    ControllerChannel.BrokerRegistration registration =
        RegistrationWire.fromJson(read(body), broker.config().httpListener().securityProtocol());
    ControllerChannel.RegistrationResult result =
        broker.activeController().register(null, registration);
    return ok(
        Map.of("broker_epoch", result.brokerEpoch(), "metadata_offset", result.metadataOffset()));
  }

  @PostMapping(InternalApi.HEARTBEAT)
  ResponseEntity<Map<String, Object>> heartbeat(@RequestBody byte[] body) {
    JsonNode request = read(body);
    ControllerChannel.HeartbeatResult result =
        broker
            .activeController()
            .heartbeat(
                null,
                new ControllerChannel.BrokerHeartbeat(
                    request.path("broker_id").asInt(),
                    request.path("broker_epoch").asLong(),
                    request.path("metadata_offset").asLong(),
                    request.path("log_dir_offline").asBoolean(false)));
    return ok(Map.of("fenced", result.fenced(), "metadata_offset", result.metadataOffset()));
  }

  @PostMapping(InternalApi.TOPICS)
  ResponseEntity<Map<String, Object>> createTopic(@RequestBody byte[] body) {
    JsonNode request = read(body);
    return admin(
        broker
            .activeController()
            .createTopic(null, AdminWire.newTopic(request), AdminWire.validateOnly(request)));
  }

  @PostMapping(InternalApi.TOPICS + "/{topic}/partitions")
  ResponseEntity<Map<String, Object>> createPartitions(
      @PathVariable String topic, @RequestBody byte[] body) {
    JsonNode request = read(body);
    return admin(
        broker
            .activeController()
            .createPartitions(
                null, AdminWire.newPartitions(topic, request), AdminWire.validateOnly(request)));
  }

  @DeleteMapping(InternalApi.TOPICS + "/{topic}")
  ResponseEntity<Map<String, Object>> deleteTopic(@PathVariable String topic) {
    return admin(broker.activeController().deleteTopic(null, topic));
  }

  @PostMapping(InternalApi.BROKERS + "/{brokerId}/configs")
  ResponseEntity<Map<String, Object>> alterBrokerConfigs(
      @PathVariable int brokerId, @RequestBody byte[] body) {
    JsonNode request = read(body);
    List<ConfigChange> changes = configChanges(request);
    return admin(
        broker
            .activeController()
            .alterBrokerConfigs(null, brokerId, changes, AdminWire.validateOnly(request)));
  }

  @DeleteMapping(InternalApi.BROKERS + "/{brokerId}")
  ResponseEntity<Map<String, Object>> unregisterBroker(@PathVariable int brokerId) {
    return admin(broker.activeController().unregisterBroker(null, brokerId));
  }

  @PostMapping(InternalApi.TOPICS + "/{topic}/configs")
  ResponseEntity<Map<String, Object>> alterConfigs(
      @PathVariable String topic, @RequestBody byte[] body) {
    JsonNode request = read(body);
    List<ConfigChange> changes = configChanges(request);
    return admin(
        broker
            .activeController()
            .alterConfigs(null, topic, changes, AdminWire.validateOnly(request)));
  }

  @PostMapping(InternalApi.ELECT_LEADERS)
  ResponseEntity<Map<String, Object>> electLeaders(@RequestBody byte[] body) {
    return ok(
        AdminWire.electionResult(
            broker
                .activeController()
                .electPreferredLeaders(null, AdminWire.electionPartitions(read(body)))));
  }

  @PostMapping(InternalApi.REASSIGNMENTS)
  ResponseEntity<Map<String, Object>> alterReassignments(@RequestBody byte[] body) {
    Map<TopicPartition, Optional<List<Integer>>> targets;
    try {
      targets = AdminWire.reassignments(read(body));
    } catch (IllegalArgumentException e) {
      throw RestException.badRequest("malformed reassignment: " + e.getMessage());
    }
    return ok(
        AdminWire.reassignmentResult(
            broker.activeController().alterPartitionReassignments(null, targets)));
  }

  @PostMapping(InternalApi.SECURITY)
  ResponseEntity<Map<String, Object>> alterSecurity(@RequestBody byte[] body) {
    return admin(
        broker.activeController().alterSecurity(null, SecurityChangeWire.fromJson(read(body))));
  }

  @PostMapping(InternalApi.ALTER_PARTITION)
  ResponseEntity<Map<String, Object>> alterPartition(@RequestBody byte[] body) {
    JsonNode request = read(body);
    java.util.List<Integer> newIsr = new java.util.ArrayList<>();
    request.path("new_isr").forEach(id -> newIsr.add(id.asInt()));
    Map<Integer, Long> brokerEpochs = new LinkedHashMap<>();
    request
        .path("broker_epochs")
        .properties()
        .forEach(e -> brokerEpochs.put(Integer.parseInt(e.getKey()), e.getValue().asLong()));
    return admin(
        broker
            .activeController()
            .alterPartition(
                null,
                new ControllerChannel.AlterPartition(
                    request.path("topic_id").asString(),
                    request.path("topic").asString(),
                    request.path("partition").asInt(),
                    request.path("leader_id").asInt(),
                    request.path("leader_epoch").asInt(),
                    request.path("partition_epoch").asInt(),
                    newIsr,
                    brokerEpochs,
                    request.path("reason").asString(null))));
  }

  @PostMapping(InternalApi.FENCE_BROKER)
  ResponseEntity<Map<String, Object>> fenceBroker(@RequestBody byte[] body) {
    JsonNode request = read(body);
    return admin(
        broker
            .activeController()
            .fenceBroker(
                null, request.path("broker_id").asInt(), request.path("broker_epoch").asLong()));
  }

  @PostMapping(InternalApi.ALLOCATE_PRODUCER_IDS)
  ResponseEntity<Map<String, Object>> allocateProducerIds(@RequestBody byte[] body) {
    JsonNode request = read(body);
    ProducerIdsBlock block =
        broker
            .activeController()
            .allocateProducerIds(
                null, request.path("broker_id").asInt(), request.path("broker_epoch").asLong());
    return ok(
        Map.of("producer_id_start", block.firstProducerId(), "producer_id_len", block.size()));
  }

  @PostMapping(InternalApi.REPLICA_TRUNCATED)
  ResponseEntity<Map<String, Object>> replicaTruncated(@RequestBody byte[] body) {
    JsonNode request = read(body);
    Truncation truncation;
    try {
      truncation =
          new Truncation(
              new TopicPartition(
                  request.path("topic").asString(), request.path("partition").asInt(-1)),
              request.path("replica_id").asInt(-1),
              request.path("leader_id").asInt(-1),
              request.path("leader_epoch").asInt(-1),
              request.path("truncated_to").asLong(-1),
              request.path("previous_log_end_offset").asLong(-1),
              request.path("high_watermark").asLong(-1));
    } catch (IllegalArgumentException e) {
      throw RestException.badRequest("invalid truncation report: " + e.getMessage());
    }
    broker.activeController().reportTruncation(null, truncation);
    return ok(Map.of());
  }

  @PostMapping(InternalApi.FAULT_INJECTED)
  ResponseEntity<Map<String, Object>> faultInjected(@RequestBody byte[] body) {
    JsonNode request = read(body);
    ControllerChannel.FaultReport fault;
    try {
      fault =
          new ControllerChannel.FaultReport(
              request.path("broker_id").asInt(-2),
              request.path("text").asString(null),
              request.path("how").asString(null));
    } catch (IllegalArgumentException e) {
      throw RestException.badRequest("invalid fault report: " + e.getMessage());
    }
    broker.activeController().reportFault(null, fault);
    return ok(Map.of());
  }

  @PostMapping(InternalApi.BROKER_UNREACHABLE)
  ResponseEntity<Map<String, Object>> brokerUnreachable(@RequestBody byte[] body) {
    JsonNode request = read(body);
    broker
        .activeController()
        .reportUnreachable(
            null, request.path("reporter_id").asInt(), request.path("broker_id").asInt());
    return ok(Map.of());
  }

  /**
   * A refusal as every API answers it, plus its Kafka code ({@link InternalApi#KAFKA_ERROR_CODE}),
   * so that the broker that forwarded the request fails with exactly that code, whichever it is.
   */
  @ExceptionHandler(ApiException.class)
  ResponseEntity<Object> refused(ApiException e) {
    ResponseEntity<ErrorResponse> rest = ApiExceptionHandler.toResponse(e);
    if (e instanceof RemoteApiException || rest.getBody() == null) {
      return ResponseEntity.status(rest.getStatusCode())
          .headers(rest.getHeaders())
          .body(rest.getBody());
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error_code", rest.getBody().errorCode());
    body.put("message", rest.getBody().message());
    body.put(InternalApi.KAFKA_ERROR_CODE, e.error().code());
    return ResponseEntity.status(rest.getStatusCode())
        .contentType(MediaType.APPLICATION_JSON)
        .body(body);
  }

  private JsonNode read(byte[] body) {
    try {
      JsonNode node = json.readTree(body);
      if (node == null || !node.isObject()) {
        throw RestException.badRequest("internal request bodies are JSON objects");
      }
      return node;
    } catch (JacksonException e) {
      throw RestException.badRequest("malformed internal request: " + JsonBodyErrors.describe(e));
    }
  }

  private static ResponseEntity<Map<String, Object>> admin(ControllerChannel.AdminResult result) {
    return ok(Map.of("metadata_offset", result.metadataOffset()));
  }

  private static ResponseEntity<Map<String, Object>> ok(Map<String, Object> body) {
    return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(body);
  }

  private static List<ConfigChange> configChanges(JsonNode request) {
    try {
      return AdminWire.configChanges(request);
    } catch (IllegalArgumentException e) {
      throw RestException.badRequest("malformed config change: " + e.getMessage());
    }
  }
}
