package dev.tributary.api;

import dev.tributary.log.record.Header;
import dev.tributary.server.ProduceRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads a REST Proxy v2 produce body, {@code
 * {"records":[{"key":..,"value":..,"partition":..,"headers":.., "timestamp":..}]}}, into {@link
 * ProduceRecord}s. Every record is checked before any is returned, so a bad record rejects the
 * whole request with a message naming it.
 *
 * <p>Headers may be an object ({@code {"trace":"abc"}}) or REST Proxy v3's list ({@code
 * [{"name":..,"value":..}]}); header values are base64 in the binary format and UTF-8 text in the
 * JSON format.
 */
final class ProduceRequestParser {
  private final JsonMapper json;
  private final int maxRecordsPerRequest;

  /**
   * @param maxRecordsPerRequest more records than this in one body are refused (413 41303) before
   *     any is decoded, so nothing of such a request is appended
   */
  ProduceRequestParser(JsonMapper json, int maxRecordsPerRequest) {
    this.maxRecordsPerRequest = maxRecordsPerRequest;
    // Decimals as BigDecimal: a JSON value is stored as the text it was, not rounded through a
    // double.
    this.json = json.rebuild().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();
  }

  List<ProduceRecord> parse(byte[] body, EmbeddedFormat format) {
    JsonNode root;
    try {
      root = json.readTree(body);
    } catch (JacksonException e) {
      throw JsonBodyErrors.of(e);
    }
    if (root == null || !root.isObject() || !root.path("records").isArray()) {
      throw RestException.badRequest("The body must be a JSON object with a \"records\" array");
    }
    JsonNode records = root.get("records");
    if (records.size() > maxRecordsPerRequest) {
      throw new RestException(
          HttpStatus.CONTENT_TOO_LARGE,
          41303,
          "The request has "
              + records.size()
              + " records, more than tributary.max-records-per-request="
              + maxRecordsPerRequest
              + "; send them in several requests");
    }
    List<ProduceRecord> result = new ArrayList<>(records.size());
    for (int i = 0; i < records.size(); i++) {
      JsonNode record = records.get(i);
      if (!record.isObject()) {
        throw RestException.badRequest("records[" + i + "] must be a JSON object");
      }
      for (String field : record.propertyNames()) {
        if (!List.of("key", "value", "partition", "headers", "timestamp").contains(field)) {
          throw RestException.badRequest(
              "records["
                  + i
                  + "] has unknown field \""
                  + field
                  + "\"; expected key, value, partition, headers, timestamp");
        }
      }
      result.add(
          new ProduceRecord(
              partition(record.get("partition"), i),
              bytes(record.get("key"), format, "records[" + i + "].key"),
              bytes(record.get("value"), format, "records[" + i + "].value"),
              headers(record.get("headers"), format, i),
              timestamp(record.get("timestamp"), i)));
    }
    return result;
  }

  private byte[] bytes(JsonNode node, EmbeddedFormat format, String where) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (format == EmbeddedFormat.JSON) {
      return json.writeValueAsBytes(
          node); // compact JSON text: the bytes Kafka's JSON serializer would write
    }
    if (!node.isString()) {
      throw RestException.badRequest(where + " must be a base64 string in the binary format");
    }
    return base64(node.stringValue(), where);
  }

  private static byte[] base64(String text, String where) {
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw RestException.badRequest(where + " is not valid base64: " + e.getMessage());
    }
  }

  private static Integer partition(JsonNode node, int i) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isIntegralNumber() || !node.canConvertToInt() || node.intValue() < 0) {
      throw RestException.badRequest("records[" + i + "].partition must be a non-negative integer");
    }
    return node.intValue();
  }

  private static Long timestamp(JsonNode node, int i) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isIntegralNumber() || !node.canConvertToLong() || node.longValue() < 0) {
      throw RestException.badRequest(
          "records[" + i + "].timestamp must be epoch milliseconds (>= 0)");
    }
    return node.longValue();
  }

  private List<Header> headers(JsonNode node, EmbeddedFormat format, int i) {
    if (node == null || node.isNull()) {
      return List.of();
    }
    List<Header> headers = new ArrayList<>();
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> entry : node.properties()) {
        headers.add(new Header(entry.getKey(), headerValue(entry.getValue(), format, i)));
      }
    } else if (node.isArray()) {
      for (JsonNode header : node) {
        if (!header.isObject() || !header.path("name").isString()) {
          throw RestException.badRequest(
              "records[" + i + "].headers entries must be {\"name\": .., \"value\": ..}");
        }
        headers.add(
            new Header(
                header.get("name").stringValue(), headerValue(header.get("value"), format, i)));
      }
    } else {
      throw RestException.badRequest("records[" + i + "].headers must be an object or a list");
    }
    return headers;
  }

  private static byte[] headerValue(JsonNode node, EmbeddedFormat format, int i) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isString()) {
      throw RestException.badRequest("records[" + i + "] header values must be strings or null");
    }
    if (format == EmbeddedFormat.BINARY) {
      return base64(node.stringValue(), "records[" + i + "] header value");
    }
    return node.stringValue().getBytes(StandardCharsets.UTF_8);
  }
}
