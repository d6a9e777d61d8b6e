package dev.tributary.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tributary.auth.AccessGuard;
import dev.tributary.consumer.ConsumerInstance;
import dev.tributary.consumer.ConsumerManager;
import dev.tributary.consumer.ConsumerSettings;
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
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
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
  private final ConsumerInstances instances;
  private final PeerUrls urls;
  private final int maxConsumerInstancesPerPrincipal;

  ConsumersV2Controller(
      MetadataCache broker,
      GroupServices groups,
      JsonMapper json,
      ConsumerInstances instances,
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
    this.instances = instances;
  }

  private ConsumerManager consumers() {
    return groups.consumers();
  }

  // ---------------------------------------------------------------------------------------------
  // instances

  /**
   * Any JSON type is read ({@code application/*+json} as Spring's converter takes it); another is
   * refused 415 41501 naming the two concrete ones.
   */
  @PostMapping(
      path = "/consumers/{group}",
      consumes = {"application/vnd.kafka.v2+json", "application/json", "application/*+json"})
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
    return instances.onInstance(
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
    return instances.onInstance(
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
    return instances.onInstance(
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
    return instances.onInstance(
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
    return instances.onInstance(
        request,
        group,
        instance,
        body,
        consumer -> {
          var partitions = ConsumerBodies.partitions(parse(body), "partitions");
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
    return instances.onInstance(
        request,
        group,
        instance,
        null,
        consumer -> {
          consumer.touch();
          return done(
              ResponseEntity.ok()
                  .contentType(V2_JSON)
                  .body(
                      Map.of("partitions", ConsumerBodies.toJson(consumer.assignedPartitions()))));
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
    return instances.onInstance(
        request,
        group,
        instance,
        body,
        consumer -> {
          consumer.seek(ConsumerBodies.offsets(parse(body), false));
          return done(ResponseEntity.noContent().build());
        });
  }

  @PostMapping(BASE + "/positions/beginning")
  CompletableFuture<ResponseEntity<?>> seekToBeginning(
      @PathVariable String group,
      @PathVariable String instance,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request) {
    return instances.onInstance(
        request,
        group,
        instance,
        body,
        consumer -> {
          consumer.seekToBeginning(ConsumerBodies.partitions(parse(body), "partitions"));
          return done(ResponseEntity.noContent().build());
        });
  }

  @PostMapping(BASE + "/positions/end")
  CompletableFuture<ResponseEntity<?>> seekToEnd(
      @PathVariable String group,
      @PathVariable String instance,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request) {
    return instances.onInstance(
        request,
        group,
        instance,
        body,
        consumer -> {
          consumer.seekToEnd(ConsumerBodies.partitions(parse(body), "partitions"));
          return done(ResponseEntity.noContent().build());
        });
  }

  // ---------------------------------------------------------------------------------------------
  // parsing

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
