package dev.tributary.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tributary.auth.AccessGuard;
import dev.tributary.auth.RequestPrincipal;
import dev.tributary.common.TopicPartition;
import dev.tributary.consumer.ConsumerInstance;
import dev.tributary.consumer.ConsumerManager;
import dev.tributary.consumer.ConsumerSettings;
import dev.tributary.consumer.PartitionRecords;
import dev.tributary.group.OffsetAndMetadata;
import dev.tributary.group.assignor.PartitionAssignors;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.GroupServices;
import dev.tributary.server.MetadataCache;
import dev.tributary.transport.http.PeerUrls;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * REST Proxy v2's consumer API: create an instance in a group, subscribe it (or assign partitions
 * by hand), read records, commit offsets, delete it. Instances live on the broker that created them
 * ({@code base_uri} names it); a request that reaches another broker is sent on to the right one by
 * {@link ConsumerInstanceProxy}. The core is {@link ConsumerInstance}; this class only parses and
 * renders.
 */
@RestController
class ConsumersV2Controller {
  private static final MediaType V2_JSON = ProduceController.V2_JSON;
  private static final String BASE = "/consumers/{group}/instances/{instance}";

  /** The group generation a records answer was delivered in (-1 for a manual assignment). */
  static final String GENERATION_HEADER = "X-Tributary-Group-Generation";

  /** The instance configs REST Proxy v2 takes at creation, plus the group protocol's own. */
  private static final Set<String> CONFIG_KEYS =
      Set.of(
          "name",
          "format",
          "auto.offset.reset",
          "auto.commit.enable",
          "auto.commit.interval.ms",
          "fetch.min.bytes",
          "consumer.request.timeout.ms",
          "session.timeout.ms",
          "heartbeat.interval.ms",
          "partition.assignment.strategy",
          "consumer.instance.timeout.ms");

  private final MetadataCache broker;
  private final AccessGuard access;
  private final GroupServices groups;
  private final JsonMapper json;
  private final RecordJsonWriter writer;
  private final ConsumerInstanceProxy proxy;
  private final PeerUrls urls;
  private final int maxConsumerInstancesPerPrincipal;

  ConsumersV2Controller(
      MetadataCache broker,
      GroupServices groups,
      JsonMapper json,
      ConsumerInstanceProxy proxy,
      AccessGuard access,
      PeerUrls urls,
      @Value("${tributary.max-consumer-instances-per-principal:100}")
          int maxConsumerInstancesPerPrincipal) {
    this.access = access;
    this.maxConsumerInstancesPerPrincipal = maxConsumerInstancesPerPrincipal;
    this.broker = broker;
    this.urls = urls;
    this.groups = groups;
    this.json = json;
    this.writer = new RecordJsonWriter(json);
    this.proxy = proxy;
  }

  private ConsumerManager consumers() {
    return groups.consumers();
  }

  // ---------------------------------------------------------------------------------------------
  // instances

  @PostMapping("/consumers/{group}")
  ResponseEntity<CreatedInstance> create(
      @PathVariable String group,
      @RequestBody(required = false) JsonNode body,
      HttpServletRequest request) {
    requireGroupName(group);
    JsonNode config = body == null || body.isNull() ? json.createObjectNode() : body;
    if (!config.isObject()) {
      throw RestException.badRequest("The body must be a JSON object of consumer configs");
    }
    for (String key : config.propertyNames()) {
      if (!CONFIG_KEYS.contains(key)) {
        throw invalidConfig(
            "Unknown consumer config '"
                + key
                + "'; known: "
                + new java.util.TreeSet<>(CONFIG_KEYS));
      }
    }
    String name = text(config, "name", null);
    if (name != null
        && (name.isBlank() || name.length() > 249 || !name.matches("[A-Za-z0-9._-]+"))) {
      throw invalidConfig("name must be 1-249 characters of [A-Za-z0-9._-], got '" + name + "'");
    }
    ConsumerSettings defaults = ConsumerSettings.defaults("binary");
    ConsumerSettings settings;
    try {
      String assignors =
          text(config, "partition.assignment.strategy", String.join(",", defaults.assignors()));
      List<String> strategy =
          Arrays.stream(assignors.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
      for (String s : strategy) {
        PartitionAssignors.byName(s);
      }
      settings =
          new ConsumerSettings(
              text(config, "format", "binary"),
              text(config, "auto.offset.reset", defaults.autoOffsetReset()),
              bool(config, "auto.commit.enable", defaults.autoCommitEnable()),
              number(config, "auto.commit.interval.ms", defaults.autoCommitIntervalMs()),
              intNumber(config, "fetch.min.bytes", defaults.fetchMinBytes()),
              number(config, "consumer.request.timeout.ms", defaults.requestTimeoutMs()),
              intNumber(config, "session.timeout.ms", defaults.sessionTimeoutMs()),
              intNumber(config, "heartbeat.interval.ms", defaults.heartbeatIntervalMs()),
              strategy,
              number(config, "consumer.instance.timeout.ms", defaults.instanceTimeoutMs()));
    } catch (IllegalArgumentException e) {
      throw invalidConfig(e.getMessage());
    }
    int sessionTimeoutMs = settings.sessionTimeoutMs();
    var limits = groups.config();
    if (sessionTimeoutMs < limits.minSessionTimeoutMs()
        || sessionTimeoutMs > limits.maxSessionTimeoutMs()) {
      throw invalidConfig(
          "session.timeout.ms must be between group.min.session.timeout.ms="
              + limits.minSessionTimeoutMs()
              + " and group.max.session.timeout.ms="
              + limits.maxSessionTimeoutMs()
              + ", got "
              + sessionTimeoutMs);
    }
    // The authenticated principal; with authentication off, the client's address (ClientIdentity).
    String principal = ClientIdentity.of(request);
    ConsumerInstance instance =
        consumers()
            .create(
                group,
                name,
                settings,
                principal,
                topic -> access.allows(principal, AclOperation.READ, ResourceType.TOPIC, topic),
                maxConsumerInstancesPerPrincipal);
    return ResponseEntity.ok()
        .contentType(V2_JSON)
        .body(new CreatedInstance(instance.instanceId(), baseUri(group, instance.instanceId())));
  }

  record CreatedInstance(
      @JsonProperty("instance_id") String instanceId, @JsonProperty("base_uri") String baseUri) {}

  private String baseUri(String group, String instance) {
    return urls.base(broker.config().host(), broker.config().port())
        + "/consumers/"
        + URLEncoder.encode(group, StandardCharsets.UTF_8)
        + "/instances/"
        + URLEncoder.encode(instance, StandardCharsets.UTF_8);
  }

  @DeleteMapping(BASE)
  CompletableFuture<ResponseEntity<?>> delete(
      @PathVariable String group, @PathVariable String instance, HttpServletRequest request) {
    return onInstance(
        request,
        group,
        instance,
        null,
        consumer ->
            consumers()
                .delete(group, instance)
                .<ResponseEntity<?>>thenApply(v -> ResponseEntity.noContent().build()));
  }

  // ---------------------------------------------------------------------------------------------
  // subscription and assignment

  @PostMapping(BASE + "/subscription")
  CompletableFuture<ResponseEntity<?>> subscribe(
      @PathVariable String group,
      @PathVariable String instance,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request) {
    return onInstance(
        request,
        group,
        instance,
        body,
        consumer -> {
          JsonNode node = parse(body);
          List<String> topics = null;
          if (node.has("topics")) {
            if (!node.get("topics").isArray()) {
              throw RestException.badRequest("\"topics\" must be an array of topic names");
            }
            topics = new ArrayList<>();
            for (JsonNode t : node.get("topics")) {
              if (!t.isString()) {
                throw RestException.badRequest("\"topics\" must be an array of topic names");
              }
              topics.add(t.asString());
            }
          }
          String pattern = node.has("topic_pattern") ? node.get("topic_pattern").asString() : null;
          if (topics != null) {
            for (String topic : topics) {
              access.require(request, AclOperation.READ, ResourceType.TOPIC, topic);
            }
          }
          consumer.subscribe(topics, pattern);
          return done(ResponseEntity.noContent().build());
        });
  }

  @GetMapping(BASE + "/subscription")
  CompletableFuture<ResponseEntity<?>> subscription(
      @PathVariable String group, @PathVariable String instance, HttpServletRequest request) {
    return onInstance(
        request,
        group,
        instance,
        null,
        consumer -> {
          Map<String, Object> answer = new LinkedHashMap<>();
          answer.put("topics", consumer.subscription());
          if (consumer.topicPattern() != null) {
            answer.put("topic_pattern", consumer.topicPattern());
          }
          return done(ResponseEntity.ok().contentType(V2_JSON).body(answer));
        });
  }

  @DeleteMapping(BASE + "/subscription")
  CompletableFuture<ResponseEntity<?>> unsubscribe(
      @PathVariable String group, @PathVariable String instance, HttpServletRequest request) {
    return onInstance(
        request,
        group,
        instance,
        null,
        consumer -> {
          consumer.unsubscribe();
          return done(ResponseEntity.noContent().build());
        });
  }

  @PostMapping(BASE + "/assignments")
  CompletableFuture<ResponseEntity<?>> assign(
      @PathVariable String group,
      @PathVariable String instance,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request) {
    return onInstance(
        request,
        group,
        instance,
        body,
        consumer -> {
          var partitions = partitions(parse(body), "partitions");
          for (var tp : partitions) {
            access.require(request, AclOperation.READ, ResourceType.TOPIC, tp.topic());
          }
          consumer.assign(partitions);
          return done(ResponseEntity.noContent().build());
        });
  }

  @GetMapping(BASE + "/assignments")
  CompletableFuture<ResponseEntity<?>> assignments(
      @PathVariable String group, @PathVariable String instance, HttpServletRequest request) {
    return onInstance(
        request,
        group,
        instance,
        null,
        consumer -> {
          consumer.touch();
          return done(
              ResponseEntity.ok()
                  .contentType(V2_JSON)
                  .body(Map.of("partitions", toJson(consumer.assignedPartitions()))));
        });
  }

  // ---------------------------------------------------------------------------------------------
  // positions

  @PostMapping(BASE + "/positions")
  CompletableFuture<ResponseEntity<?>> seek(
      @PathVariable String group,
      @PathVariable String instance,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request) {
    return onInstance(
        request,
        group,
        instance,
        body,
        consumer -> {
          consumer.seek(offsets(parse(body), false));
          return done(ResponseEntity.noContent().build());
        });
  }

  @PostMapping(BASE + "/positions/beginning")
  CompletableFuture<ResponseEntity<?>> seekToBeginning(
      @PathVariable String group,
      @PathVariable String instance,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request) {
    return onInstance(
        request,
        group,
        instance,
        body,
        consumer -> {
          consumer.seekToBeginning(partitions(parse(body), "partitions"));
          return done(ResponseEntity.noContent().build());
        });
  }

  @PostMapping(BASE + "/positions/end")
  CompletableFuture<ResponseEntity<?>> seekToEnd(
      @PathVariable String group,
      @PathVariable String instance,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request) {
    return onInstance(
        request,
        group,
        instance,
        body,
        consumer -> {
          consumer.seekToEnd(partitions(parse(body), "partitions"));
          return done(ResponseEntity.noContent().build());
        });
  }

  // ---------------------------------------------------------------------------------------------
  // records and offsets

  @GetMapping(BASE + "/records")
  CompletableFuture<ResponseEntity<?>> records(
      @PathVariable String group,
      @PathVariable String instance,
      @RequestParam(required = false) Long timeout,
      @RequestParam(name = "max_bytes", required = false) Long maxBytes,
      @RequestHeader(value = HttpHeaders.ACCEPT, required = false) String accept,
      HttpServletRequest request) {
    return onInstance(
        request,
        group,
        instance,
        null,
        consumer -> {
          if (timeout != null && timeout < 0) {
            throw RestException.badParameter("timeout must be >= 0 milliseconds, got " + timeout);
          }
          if (maxBytes != null && maxBytes < 1) {
            throw RestException.badParameter("max_bytes must be at least 1, got " + maxBytes);
          }
          EmbeddedFormat format =
              consumer.settings().format().equals("json")
                  ? EmbeddedFormat.JSON
                  : EmbeddedFormat.BINARY;
          if (accept != null
              && !accept.isBlank()
              && !accept.contains("*/*")
              && !accept.contains(format.mediaType)) {
            throw new RestException(
                HttpStatus.NOT_ACCEPTABLE,
                40601,
                "The requested embedded data format does not match the deserializer for this consumer instance: it was created with format "
                    + consumer.settings().format()
                    + "; ask with 'Accept: "
                    + format.mediaType
                    + "'");
          }
          long waitMs =
              Math.min(
                  timeout == null ? consumer.settings().requestTimeoutMs() : timeout,
                  RecordsController.MAX_TIMEOUT_MS);
          long budget = maxBytes == null ? 64L * 1024 * 1024 : maxBytes;
          ConsumerInstance.Deliverable deliverable =
              format == EmbeddedFormat.JSON ? writer::rendersAsJson : record -> true;
          return consumer
              .records(waitMs, budget, deliverable)
              .thenApply(
                  delivery -> {
                    List<PartitionRecords> read = delivery.partitions();
                    List<RecordJsonWriter.Slice> slices = new ArrayList<>();
                    for (PartitionRecords p : read) {
                      TopicPartition tp = p.topicPartition();
                      slices.add(
                          new RecordJsonWriter.Slice(
                              tp.topic(),
                              tp.partition(),
                              p.batches(),
                              p.fromOffset(),
                              p.untilOffset()));
                    }
                    RecordJsonWriter.Rendered rendered =
                        writer.renderAll(slices, format, format == EmbeddedFormat.JSON);
                    return ResponseEntity.ok()
                        .contentType(MediaType.parseMediaType(format.mediaType))
                        .header(GENERATION_HEADER, Integer.toString(delivery.generationId()))
                        .body(rendered.body());
                  });
        });
  }

  @PostMapping(BASE + "/offsets")
  CompletableFuture<ResponseEntity<?>> commit(
      @PathVariable String group,
      @PathVariable String instance,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request) {
    return onInstance(
        request,
        group,
        instance,
        body,
        consumer -> {
          // No body, {} or {"offsets":[]} commits everything returned so far; anything else must be
          // a
          // well-formed list (a malformed one is refused, never read as "everything").
          JsonNode node = body == null || body.length == 0 ? null : parse(body);
          Map<TopicPartition, Long> offsets = null;
          if (node != null) {
            for (String field : node.propertyNames()) {
              if (!field.equals("offsets")) {
                throw RestException.badRequest(
                    "Unknown field \""
                        + field
                        + "\"; the body is {\"offsets\":[{\"topic\",\"partition\",\"offset\"}]}");
              }
            }
            if (node.has("offsets")
                && !(node.get("offsets").isArray() && node.get("offsets").isEmpty())) {
              offsets = offsets(node, true);
              // As Kafka's OffsetCommit: committing for a topic takes READ on it, not only on
              // the group (else group members could move others' positions in any topic).
              for (TopicPartition tp : offsets.keySet()) {
                access.require(request, AclOperation.READ, ResourceType.TOPIC, tp.topic());
              }
            }
          }
          return consumer.commit(offsets).thenApply(v -> ResponseEntity.ok().build());
        });
  }

  @GetMapping(BASE + "/offsets")
  CompletableFuture<ResponseEntity<?>> committed(
      @PathVariable String group,
      @PathVariable String instance,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request) {
    return onInstance(
        request,
        group,
        instance,
        body,
        consumer -> {
          List<TopicPartition> partitions =
              body == null || body.length == 0
                  ? consumer.assignedPartitions()
                  : partitions(parse(body), "partitions");
          for (TopicPartition tp : partitions) {
            access.require(request, AclOperation.READ, ResourceType.TOPIC, tp.topic());
          }
          return consumer
              .committed(partitions)
              .thenApply(
                  found -> {
                    List<Map<String, Object>> out = new ArrayList<>();
                    for (TopicPartition tp : partitions) {
                      OffsetAndMetadata o = found.get(tp);
                      Map<String, Object> row = new LinkedHashMap<>();
                      row.put("topic", tp.topic());
                      row.put("partition", tp.partition());
                      row.put("offset", o == null ? -1 : o.offset());
                      row.put("metadata", o == null ? "" : o.metadata());
                      out.add(row);
                    }
                    return ResponseEntity.ok().contentType(V2_JSON).body(Map.of("offsets", out));
                  });
        });
  }

  // ---------------------------------------------------------------------------------------------
  // parsing

  /**
   * Runs {@code call} on the instance if it lives on this broker; otherwise relays the request
   * (with its {@code body}) to the broker that holds it.
   */
  private CompletableFuture<ResponseEntity<?>> onInstance(
      HttpServletRequest request,
      String group,
      String instance,
      byte[] body,
      java.util.function.Function<ConsumerInstance, CompletableFuture<ResponseEntity<?>>> call) {
    ConsumerInstance consumer = local(group, instance);
    if (consumer == null) {
      return proxy.forward(request, group, instance, body);
    }
    if (access.enabled() && !consumer.principal().equals(RequestPrincipal.of(request))) {
      // As if it did not exist: another principal's instances are not even named to this one.
      throw new dev.tributary.consumer.ConsumerInstanceNotFoundException(
          "Consumer instance '" + instance + "' not found in group '" + group + "'");
    }
    return call.apply(consumer);
  }

  private ConsumerInstance local(String group, String instance) {
    return consumers().has(group, instance) ? consumers().get(group, instance) : null;
  }

  private static <T> CompletableFuture<T> done(T value) {
    return CompletableFuture.completedFuture(value);
  }

  private static void requireGroupName(String group) {
    if (group.isBlank() || group.length() > 249) {
      throw RestException.badParameter("A group id must be 1-249 characters, got '" + group + "'");
    }
  }

  private static RestException invalidConfig(String message) {
    return new RestException(HttpStatus.UNPROCESSABLE_CONTENT, 42202, message);
  }

  private JsonNode parse(byte[] body) {
    return ApiRequests.object(json, body);
  }

  private static List<TopicPartition> partitions(JsonNode body, String field) {
    JsonNode array = body.get(field);
    if (array == null || !array.isArray()) {
      throw RestException.badRequest(
          "\"" + field + "\" must be an array of {\"topic\", \"partition\"}");
    }
    List<TopicPartition> out = new ArrayList<>();
    for (JsonNode p : array) {
      out.add(partitionOf(p));
    }
    return out;
  }

  private static TopicPartition partitionOf(JsonNode p) {
    if (!p.isObject()
        || !p.path("topic").isString()
        || !p.path("partition").isIntegralNumber()
        || !p.path("partition").canConvertToInt()) {
      throw RestException.badRequest(
          "Each partition needs a string \"topic\" and an integer \"partition\"");
    }
    int partition = p.get("partition").asInt();
    if (partition < 0) {
      throw RestException.badRequest("partition must be >= 0, got " + partition);
    }
    return new TopicPartition(p.get("topic").asString(), partition);
  }

  /**
   * {@code {"offsets":[{"topic","partition","offset"}]}}. For a commit, REST Proxy v2 takes the
   * offset of the last record processed and commits the one after it (what the group reads next).
   */
  private static Map<TopicPartition, Long> offsets(JsonNode body, boolean lastProcessed) {
    JsonNode array = body.get("offsets");
    if (array == null || !array.isArray()) {
      throw RestException.badRequest(
          "\"offsets\" must be an array of {\"topic\", \"partition\", \"offset\"}");
    }
    Map<TopicPartition, Long> out = new LinkedHashMap<>();
    for (JsonNode o : array) {
      TopicPartition tp = partitionOf(o);
      if (!o.path("offset").isIntegralNumber()
          || !o.get("offset").canConvertToLong()
          || o.get("offset").asLong() < 0
          || o.get("offset").asLong() == Long.MAX_VALUE) {
        throw RestException.badRequest(
            "Each offset needs an integer \"offset\" from 0 to " + (Long.MAX_VALUE - 1));
      }
      out.put(tp, o.get("offset").asLong() + (lastProcessed ? 1 : 0));
    }
    return out;
  }

  private static List<Map<String, Object>> toJson(List<TopicPartition> partitions) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("topic", tp.topic());
      row.put("partition", tp.partition());
      out.add(row);
    }
    return out;
  }

  private static String text(JsonNode config, String key, String fallback) {
    JsonNode v = config.get(key);
    if (v == null || v.isNull()) {
      return fallback;
    }
    if (!v.isValueNode()) {
      throw invalidConfig(key + " must be a string");
    }
    return v.asString();
  }

  private static boolean bool(JsonNode config, String key, boolean fallback) {
    String v = text(config, key, null);
    if (v == null) {
      return fallback;
    }
    if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
      throw invalidConfig(key + " must be true or false, got '" + v + "'");
    }
    return Boolean.parseBoolean(v);
  }

  private static int intNumber(JsonNode config, String key, int fallback) {
    long v = number(config, key, fallback);
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw invalidConfig(key + " must fit in 32 bits, got " + v);
    }
    return (int) v;
  }

  private static long number(JsonNode config, String key, long fallback) {
    String v = text(config, key, null);
    if (v == null) {
      return fallback;
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw invalidConfig(key + " must be an integer, got '" + v + "'");
    }
  }
}
