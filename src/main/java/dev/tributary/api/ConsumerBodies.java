package dev.tributary.api;

import dev.tributary.common.TopicPartition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** The partition and offset lists of REST Proxy v2's consumer API, read and written. */
final class ConsumerBodies {
  private ConsumerBodies() {}

  static List<TopicPartition> partitions(JsonNode body, String field) {
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

  static TopicPartition partitionOf(JsonNode p) {
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
  static Map<TopicPartition, Long> offsets(JsonNode body, boolean lastProcessed) {
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

  static List<Map<String, Object>> toJson(List<TopicPartition> partitions) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("topic", tp.topic());
      row.put("partition", tp.partition());
      out.add(row);
    }
    return out;
  }
}
