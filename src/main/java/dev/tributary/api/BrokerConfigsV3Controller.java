package dev.tributary.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tributary.auth.RequestContexts;
import dev.tributary.metadata.BrokerConfigControl;
import dev.tributary.metadata.ConfigChange;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.server.AdminService;
import dev.tributary.server.ConfigDescriptions;
import dev.tributary.server.MetadataCache;
import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The broker configs that change at run time, under Confluent's v3 resources: the replication
 * throttle rates of one broker ({@code /brokers/{id}/configs}) or of every broker ({@code
 * /broker-configs}, Kafka's resource name ""). Through {@link AdminService#alterBrokerConfigs}, as
 * Kafka's IncrementalAlterConfigs; the static broker configs are Kafka's DescribeConfigs' ([ADR
 * 0029](docs/adr/0029-replication-throttles.md)).
 */
@RestController
class BrokerConfigsV3Controller {
  private final MetadataCache broker;
  private final AdminService admin;
  private final RequestContexts contexts;
  private final JsonMapper json;

  BrokerConfigsV3Controller(
      MetadataCache broker, AdminService admin, RequestContexts contexts, JsonMapper json) {
    this.broker = broker;
    this.admin = admin;
    this.contexts = contexts;
    this.json = json;
  }

  /** Confluent's {@code KafkaBrokerConfig} / {@code KafkaClusterConfig} (broker_id null). */
  record BrokerConfig(
      @JsonProperty("kind") String kind,
      @JsonProperty("metadata") V3Resources.ResourceMetadata metadata,
      @JsonProperty("cluster_id") String clusterId,
      @JsonProperty("broker_id") Integer brokerId,
      @JsonProperty("name") String name,
      @JsonProperty("value") String value,
      @JsonProperty("is_default") boolean isDefault,
      @JsonProperty("is_read_only") boolean isReadOnly,
      @JsonProperty("is_sensitive") boolean isSensitive,
      @JsonProperty("source") String source) {}

  @GetMapping("/v3/clusters/{clusterId}/brokers/{brokerId}/configs")
  ResponseEntity<V3Resources.ResourceList<BrokerConfig>> ofBroker(
      @PathVariable String clusterId, @PathVariable int brokerId) {
    ApiRequests.requireCluster(broker, clusterId);
    requireBroker(brokerId);
    List<BrokerConfig> configs = new ArrayList<>();
    for (String name : new TreeSet<>(BrokerConfigControl.DYNAMIC)) {
      configs.add(resource(brokerId, name));
    }
    return ok(
        new V3Resources.ResourceList<>("KafkaBrokerConfigList", list(path(brokerId)), configs));
  }

  @GetMapping("/v3/clusters/{clusterId}/brokers/{brokerId}/configs/{name}")
  ResponseEntity<BrokerConfig> oneOfBroker(
      @PathVariable String clusterId, @PathVariable int brokerId, @PathVariable String name) {
    ApiRequests.requireCluster(broker, clusterId);
    requireBroker(brokerId);
    requireDynamic(name);
    return ok(resource(brokerId, name));
  }

  @GetMapping("/v3/clusters/{clusterId}/broker-configs")
  ResponseEntity<V3Resources.ResourceList<BrokerConfig>> defaults(@PathVariable String clusterId) {
    ApiRequests.requireCluster(broker, clusterId);
    List<BrokerConfig> configs = new ArrayList<>();
    new java.util.TreeMap<>(
            broker.metadata().brokerConfigs().getOrDefault(MetadataImage.DEFAULT_BROKER, Map.of()))
        .forEach((name, value) -> configs.add(resource(MetadataImage.DEFAULT_BROKER, name)));
    return ok(
        new V3Resources.ResourceList<>(
            "KafkaClusterConfigList", list(path(MetadataImage.DEFAULT_BROKER)), configs));
  }

  /** Sets one rate: {@code {"value": "1000000"}} (bytes per second). */
  @PutMapping("/v3/clusters/{clusterId}/brokers/{brokerId}/configs/{name}")
  CompletableFuture<ResponseEntity<Void>> setOfBroker(
      @PathVariable String clusterId,
      @PathVariable int brokerId,
      @PathVariable String name,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest http) {
    ApiRequests.requireCluster(broker, clusterId);
    requireBroker(brokerId);
    return alter(String.valueOf(brokerId), ConfigChange.set(name, value(body)), http);
  }

  @DeleteMapping("/v3/clusters/{clusterId}/brokers/{brokerId}/configs/{name}")
  CompletableFuture<ResponseEntity<Void>> deleteOfBroker(
      @PathVariable String clusterId,
      @PathVariable int brokerId,
      @PathVariable String name,
      HttpServletRequest http) {
    ApiRequests.requireCluster(broker, clusterId);
    requireBroker(brokerId);
    return alter(String.valueOf(brokerId), ConfigChange.delete(name), http);
  }

  @PutMapping("/v3/clusters/{clusterId}/broker-configs/{name}")
  CompletableFuture<ResponseEntity<Void>> setDefault(
      @PathVariable String clusterId,
      @PathVariable String name,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest http) {
    ApiRequests.requireCluster(broker, clusterId);
    return alter("", ConfigChange.set(name, value(body)), http);
  }

  @DeleteMapping("/v3/clusters/{clusterId}/broker-configs/{name}")
  CompletableFuture<ResponseEntity<Void>> deleteDefault(
      @PathVariable String clusterId, @PathVariable String name, HttpServletRequest http) {
    ApiRequests.requireCluster(broker, clusterId);
    return alter("", ConfigChange.delete(name), http);
  }

  private CompletableFuture<ResponseEntity<Void>> alter(
      String brokerName, ConfigChange change, HttpServletRequest http) {
    return admin
        .alterBrokerConfigs(contexts.of(http), brokerName, List.of(change))
        .thenApply(done -> ResponseEntity.noContent().<Void>build());
  }

  private String value(byte[] body) {
    JsonNode value;
    try {
      value = body == null || body.length == 0 ? null : json.readTree(body).get("value");
    } catch (RuntimeException e) {
      throw RestException.badRequest("The body must be JSON: {\"value\": \"...\"}");
    }
    if (value == null || !(value.isString() || value.isNumber())) {
      throw RestException.badRequest("The body must be {\"value\": \"...\"}");
    }
    return value.asString();
  }

  private BrokerConfig resource(int brokerId, String name) {
    ConfigDescriptions.ConfigEntry entry =
        ConfigDescriptions.dynamicBrokerConfig(broker.metadata(), brokerId, name);
    boolean everyBroker = brokerId == MetadataImage.DEFAULT_BROKER;
    return new BrokerConfig(
        everyBroker ? "KafkaClusterConfig" : "KafkaBrokerConfig",
        new V3Resources.ResourceMetadata(
            base() + path(brokerId) + "/" + name,
            "crn:///kafka="
                + broker.clusterId()
                + (everyBroker ? "" : "/broker=" + brokerId)
                + "/config="
                + name),
        broker.clusterId(),
        everyBroker ? null : brokerId,
        name,
        entry.value(),
        entry.source() == ConfigDescriptions.Source.DEFAULT_CONFIG,
        entry.readOnly(),
        entry.sensitive(),
        entry.source().name());
  }

  private void requireBroker(int brokerId) {
    if (!broker.metadata().brokers().containsKey(brokerId)) {
      throw RestException.notFound(
          40406, "Broker " + brokerId + " is not registered in this cluster");
    }
  }

  private static void requireDynamic(String name) {
    if (!BrokerConfigControl.DYNAMIC.contains(name)) {
      throw RestException.notFound(
          40405,
          "Broker config '"
              + name
              + "' is not one that changes at run time ("
              + new TreeSet<>(BrokerConfigControl.DYNAMIC)
              + "); the others are read with Kafka's DescribeConfigs");
    }
  }

  private String path(int brokerId) {
    String cluster = "/v3/clusters/" + broker.clusterId();
    return brokerId == MetadataImage.DEFAULT_BROKER
        ? cluster + "/broker-configs"
        : cluster + "/brokers/" + brokerId + "/configs";
  }

  private static V3Resources.ListMetadata list(String path) {
    return new V3Resources.ListMetadata(base() + path, null);
  }

  private static String base() {
    return ServletUriComponentsBuilder.fromCurrentContextPath().toUriString();
  }

  private static <T> ResponseEntity<T> ok(T body) {
    return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(body);
  }
}
