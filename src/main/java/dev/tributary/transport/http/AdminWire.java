package dev.tributary.transport.http;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.metadata.ConfigChange;
import dev.tributary.metadata.ElectionOutcome;
import dev.tributary.metadata.NewPartitions;
import dev.tributary.metadata.NewTopic;
import dev.tributary.metadata.PartitionOutcome;
import dev.tributary.server.ControllerChannel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * The internal API's JSON for topic admin requests forwarded to the controller, and for its
 * election answers: {@link NewTopic}, {@link NewPartitions}, {@link ConfigChange} lists, and
 * preferred leader elections. Error codes inside an election answer are Kafka's numbers.
 */
public final class AdminWire {
  private AdminWire() {}

  public static Map<String, Object> newTopic(NewTopic topic, boolean validateOnly) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", topic.name());
    body.put("partitions", topic.partitions());
    body.put("replication_factor", topic.replicationFactor());
    body.put("assignments", topic.assignments());
    body.put("configs", topic.configs());
    body.put("validate_only", validateOnly);
    return body;
  }

  public static NewTopic newTopic(JsonNode body) {
    Map<String, String> configs = new LinkedHashMap<>();
    body.path("configs")
        .properties()
        .forEach(e -> configs.put(e.getKey(), e.getValue().asString()));
    return new NewTopic(
        body.path("name").asString(),
        body.path("partitions").asInt(),
        body.path("replication_factor").asInt(),
        assignments(body.path("assignments")),
        configs);
  }

  public static Map<String, Object> newPartitions(NewPartitions request, boolean validateOnly) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("total", request.totalCount());
    body.put("assignments", request.assignments());
    body.put("validate_only", validateOnly);
    return body;
  }

  public static NewPartitions newPartitions(String topic, JsonNode body) {
    return new NewPartitions(
        topic, body.path("total").asInt(), assignments(body.path("assignments")));
  }

  public static Map<String, Object> configChanges(
      List<ConfigChange> changes, boolean validateOnly) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (ConfigChange change : changes) {
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("name", change.name());
      c.put("op", change.op().name());
      c.put("value", change.value());
      out.add(c);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("changes", out);
    body.put("validate_only", validateOnly);
    return body;
  }

  /** Throws IllegalArgumentException (an unknown op) or InvalidRequestException (no value). */
  public static List<ConfigChange> configChanges(JsonNode body) {
    List<ConfigChange> changes = new ArrayList<>();
    for (JsonNode c : body.path("changes")) {
      JsonNode value = c.path("value");
      changes.add(
          new ConfigChange(
              c.path("name").asString(),
              ConfigChange.Op.valueOf(c.path("op").asString()),
              value.isNull() || value.isMissingNode() ? null : value.asString()));
    }
    return changes;
  }

  public static boolean validateOnly(JsonNode body) {
    return body.path("validate_only").asBoolean(false);
  }

  /** {@code {"partitions": [{"topic", "partition"}...]}}, or null partitions for all. */
  public static Map<String, Object> election(List<TopicPartition> partitions) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put(
        "partitions", partitions == null ? null : partitions.stream().map(AdminWire::tp).toList());
    return body;
  }

  /** The partitions an election names; null for all. */
  public static List<TopicPartition> electionPartitions(JsonNode body) {
    JsonNode partitions = body.path("partitions");
    if (partitions.isNull() || partitions.isMissingNode()) {
      return null;
    }
    List<TopicPartition> out = new ArrayList<>();
    partitions.forEach(
        p -> out.add(new TopicPartition(p.path("topic").asString(), p.path("partition").asInt())));
    return out;
  }

  public static Map<String, Object> electionResult(ControllerChannel.ElectionResult result) {
    return outcomes(
        result.metadataOffset(),
        result.outcomes(),
        ElectionOutcome::error,
        ElectionOutcome::message);
  }

  private static <T> Map<String, Object> outcomes(
      long metadataOffset,
      Map<TopicPartition, T> byPartition,
      java.util.function.Function<T, Errors> error,
      java.util.function.Function<T, String> message) {
    List<Map<String, Object>> outcomes = new ArrayList<>();
    byPartition.forEach(
        (tp, outcome) -> {
          Map<String, Object> o = tp(tp);
          o.put("error_code", error.apply(outcome).code());
          o.put("message", message.apply(outcome));
          outcomes.add(o);
        });
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("metadata_offset", metadataOffset);
    body.put("outcomes", outcomes);
    return body;
  }

  public static ControllerChannel.ElectionResult electionResult(JsonNode body) {
    Map<TopicPartition, ElectionOutcome> outcomes = new LinkedHashMap<>();
    for (JsonNode o : body.path("outcomes")) {
      JsonNode message = o.path("message");
      outcomes.put(
          new TopicPartition(o.path("topic").asString(), o.path("partition").asInt()),
          new ElectionOutcome(
              Errors.forCode((short) o.path("error_code").asInt()),
              message.isNull() || message.isMissingNode() ? null : message.asString()));
    }
    return new ControllerChannel.ElectionResult(body.path("metadata_offset").asLong(), outcomes);
  }

  /** Reassignment targets: each partition with its target replicas, or null to cancel. */
  public static Map<String, Object> reassignments(
      Map<TopicPartition, java.util.Optional<List<Integer>>> targets) {
    List<Map<String, Object>> partitions = new ArrayList<>();
    targets.forEach(
        (tp, target) -> {
          Map<String, Object> p = tp(tp);
          p.put("replicas", target.orElse(null));
          partitions.add(p);
        });
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("partitions", partitions);
    return body;
  }

  /**
   * The targets a reassignment request names.
   *
   * @throws IllegalArgumentException a replica list that is not a list of ints
   */
  public static Map<TopicPartition, java.util.Optional<List<Integer>>> reassignments(
      JsonNode body) {
    Map<TopicPartition, java.util.Optional<List<Integer>>> targets = new LinkedHashMap<>();
    for (JsonNode p : body.path("partitions")) {
      JsonNode replicas = p.path("replicas");
      java.util.Optional<List<Integer>> target = java.util.Optional.empty();
      if (!replicas.isNull() && !replicas.isMissingNode()) {
        if (!replicas.isArray()) {
          throw new IllegalArgumentException("replicas must be a list of broker ids");
        }
        List<Integer> ids = new ArrayList<>();
        for (JsonNode id : replicas) {
          if (!id.isInt()) {
            throw new IllegalArgumentException("replicas must be a list of broker ids");
          }
          ids.add(id.asInt());
        }
        target = java.util.Optional.of(ids);
      }
      targets.put(
          new TopicPartition(p.path("topic").asString(), p.path("partition").asInt()), target);
    }
    return targets;
  }

  public static Map<String, Object> reassignmentResult(
      ControllerChannel.ReassignmentResult result) {
    return outcomes(
        result.metadataOffset(),
        result.outcomes(),
        PartitionOutcome::error,
        PartitionOutcome::message);
  }

  public static ControllerChannel.ReassignmentResult reassignmentResult(JsonNode body) {
    Map<TopicPartition, PartitionOutcome> outcomes = new LinkedHashMap<>();
    for (JsonNode o : body.path("outcomes")) {
      JsonNode message = o.path("message");
      outcomes.put(
          new TopicPartition(o.path("topic").asString(), o.path("partition").asInt()),
          new PartitionOutcome(
              Errors.forCode((short) o.path("error_code").asInt()),
              message.isNull() || message.isMissingNode() ? null : message.asString()));
    }
    return new ControllerChannel.ReassignmentResult(
        body.path("metadata_offset").asLong(), outcomes);
  }

  private static Map<String, Object> tp(TopicPartition tp) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("topic", tp.topic());
    out.put("partition", tp.partition());
    return out;
  }

  private static List<List<Integer>> assignments(JsonNode node) {
    List<List<Integer>> out = new ArrayList<>();
    for (JsonNode replicas : node) {
      List<Integer> brokers = new ArrayList<>();
      replicas.forEach(b -> brokers.add(b.asInt()));
      out.add(brokers);
    }
    return out;
  }
}
