package dev.tributary.api;

import dev.tributary.auth.AccessGuard;
import dev.tributary.common.TopicPartition;
import dev.tributary.consumer.ConsumerInstance;
import dev.tributary.consumer.PartitionRecords;
import dev.tributary.group.OffsetAndMetadata;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
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
 * REST Proxy v2's consumer reads and commits: {@code GET .../records} (a long poll holding no
 * thread), {@code POST} and {@code GET .../offsets}. The instance's lifecycle, subscription and
 * positions are {@link ConsumersV2Controller}'s.
 */
@RestController
class ConsumerRecordsV2Controller {
  private static final MediaType V2_JSON = ProduceController.V2_JSON;
  private static final String BASE = "/consumers/{group}/instances/{instance}";

  private final ConsumerInstances instances;
  private final AccessGuard access;
  private final JsonMapper json;
  private final RecordJsonWriter writer;

  ConsumerRecordsV2Controller(ConsumerInstances instances, AccessGuard access, JsonMapper json) {
    this.instances = instances;
    this.access = access;
    this.json = json;
    this.writer = new RecordJsonWriter(json);
  }

  /** Answers now when the future is already complete ({@link Answers#nowIfDone}). */
  @GetMapping(BASE + "/records")
  Object records(
      @PathVariable String group,
      @PathVariable String instance,
      @RequestParam(required = false) Long timeout,
      @RequestParam(name = "max_bytes", required = false) Long maxBytes,
      @RequestHeader(value = HttpHeaders.ACCEPT, required = false) String accept,
      HttpServletRequest request) {
    return Answers.nowIfDone(recordsAnswer(group, instance, timeout, maxBytes, accept, request));
  }

  private CompletableFuture<ResponseEntity<?>> recordsAnswer(
      String group,
      String instance,
      Long timeout,
      Long maxBytes,
      String accept,
      HttpServletRequest request) {
    return instances.onInstance(
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
                        .header(
                            ConsumersV2Controller.GENERATION_HEADER,
                            Integer.toString(delivery.generationId()))
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
    return instances.onInstance(
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
              offsets = ConsumerBodies.offsets(node, true);
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
    return instances.onInstance(
        request,
        group,
        instance,
        body,
        consumer -> {
          List<TopicPartition> partitions =
              body == null || body.length == 0
                  ? consumer.assignedPartitions()
                  : ConsumerBodies.partitions(parse(body), "partitions");
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

  private JsonNode parse(byte[] body) {
    return ApiRequests.object(json, body);
  }
}
