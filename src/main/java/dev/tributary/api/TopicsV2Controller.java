package dev.tributary.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tributary.auth.AccessGuard;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.LogConfig;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicImage;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.MetadataCache;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Map;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * REST Proxy v2 topic metadata: {@code GET /topics}, {@code /topics/{t}}, {@code
 * /topics/{t}/partitions[/{p}]}.
 */
@RestController
class TopicsV2Controller {
  private final MetadataCache broker;
  private final AccessGuard access;

  TopicsV2Controller(MetadataCache broker, AccessGuard access) {
    this.broker = broker;
    this.access = access;
  }

  /** The topics the caller may read (all of them with authentication off), as Kafka lists. */
  @GetMapping("/topics")
  ResponseEntity<List<String>> topics(HttpServletRequest request) {
    return ok(
        broker.metadata().topicsByName().keySet().stream()
            .filter(name -> access.allows(request, AclOperation.READ, ResourceType.TOPIC, name))
            .toList());
  }

  @GetMapping("/topics/{topic}")
  ResponseEntity<TopicV2> topic(@PathVariable String topic) {
    TopicImage image = topicImage(topic);
    return ok(
        new TopicV2(
            image.name(),
            LogConfig.fromMap(image.configs()).toMap(),
            image.partitions().values().stream().map(TopicsV2Controller::partition).toList()));
  }

  @GetMapping("/topics/{topic}/partitions")
  ResponseEntity<List<PartitionV2>> partitions(@PathVariable String topic) {
    return ok(
        topicImage(topic).partitions().values().stream()
            .map(TopicsV2Controller::partition)
            .toList());
  }

  @GetMapping("/topics/{topic}/partitions/{partition}")
  ResponseEntity<PartitionV2> partition(@PathVariable String topic, @PathVariable int partition) {
    TopicImage image = topicImage(topic);
    PartitionImage found = image.requirePartition(partition);
    return ok(partition(found));
  }

  private TopicImage topicImage(String topic) {
    return broker
        .metadata()
        .topic(topic)
        .orElseThrow(() -> UnknownTopicOrPartitionException.unknownTopic(topic));
  }

  private static PartitionV2 partition(PartitionImage p) {
    return new PartitionV2(
        p.partition(),
        p.leader(),
        p.replicas().stream()
            .map(b -> new ReplicaV2(b, b == p.leader(), p.isr().contains(b)))
            .toList());
  }

  private static <T> ResponseEntity<T> ok(T body) {
    return ResponseEntity.ok().contentType(ProduceController.V2_JSON).body(body);
  }

  record TopicV2(
      @JsonProperty("name") String name,
      @JsonProperty("configs") Map<String, String> configs,
      @JsonProperty("partitions") List<PartitionV2> partitions) {}

  record PartitionV2(
      @JsonProperty("partition") int partition,
      @JsonProperty("leader") int leader,
      @JsonProperty("replicas") List<ReplicaV2> replicas) {}

  record ReplicaV2(
      @JsonProperty("broker") int broker,
      @JsonProperty("leader") boolean leader,
      @JsonProperty("in_sync") boolean inSync) {}
}
