package dev.tributary.api;

import dev.tributary.log.record.Header;
import dev.tributary.server.ProduceRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.springframework.http.HttpStatus;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MappingIterator;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the body of a REST Proxy v3 produce: one JSON record, or several one after another (the
 * streaming mode), each {@code {"partition_id"?, "headers"?: [{"name", "value"(base64)}], "key"?,
 * "value"?, "timestamp"?}} with key and value {@code {"type": "JSON"|"BINARY"|"STRING", "data":
 * ...}} (no {@code type}: JSON). Each record is checked on its own: a bad one becomes an error for
 * that record only. Text that is not JSON ends the body there: the record it started answers the
 * error, and nothing after it can be read.
 */
final class V3ProduceRecords {
  private static final Set<String> FIELDS =
      Set.of("partition_id", "headers", "key", "value", "timestamp");

  private final JsonMapper json;
  private final int maxRecordsPerRequest;

  V3ProduceRecords(JsonMapper json, int maxRecordsPerRequest) {
    // Decimals as BigDecimal: a JSON value is stored as the text it was, not rounded.
    this.json = json.rebuild().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();
    this.maxRecordsPerRequest = maxRecordsPerRequest;
  }

  /**
   * One record of the body: the record to produce (its timestamp set: the one asked for, else
   * {@code nowMs}) and what its answer describes, or why it is refused.
   */
  record Parsed(
      ProduceRecord record,
      Map<String, Object> keyDescription,
      Map<String, Object> valueDescription,
      RuntimeException error) {
    Parsed failed(RuntimeException why) {
      return new Parsed(null, null, null, why);
    }
  }

  List<Parsed> parse(byte[] body, long nowMs) {
    List<Parsed> records = new ArrayList<>();
    try (MappingIterator<JsonNode> values = json.readerFor(JsonNode.class).readValues(body)) {
      while (values.hasNextValue()) {
        if (records.size() == maxRecordsPerRequest) {
          throw new RestException(
              HttpStatus.CONTENT_TOO_LARGE,
              41303,
              "The request has more than tributary.max-records-per-request="
                  + maxRecordsPerRequest
                  + " records; send them in several requests");
        }
        JsonNode node = values.nextValue();
        int index = records.size();
        try {
          records.add(record(node, index, nowMs));
        } catch (RestException e) {
          records.add(new Parsed(null, null, null, e));
        }
      }
    } catch (StreamConstraintsException e) {
      throw JsonBodyErrors.constraintBroken(e);
    } catch (JacksonException e) {
      if (records.isEmpty()) {
        throw JsonBodyErrors.of(e);
      }
      records.add(
          new Parsed(
              null,
              null,
              null,
              new RestException(
                  HttpStatus.BAD_REQUEST,
                  40001,
                  "Record "
                      + records.size()
                      + " is not JSON, and nothing after it can be read: "
                      + JsonBodyErrors.describe(e))));
    }
    if (records.isEmpty()) {
      throw RestException.badRequest("The body holds no record");
    }
    return records;
  }

  private Parsed record(JsonNode node, int index, long nowMs) {
    String where = "record " + index;
    if (!node.isObject()) {
      throw RestException.badRequest(where + " must be a JSON object");
    }
    for (String field : node.propertyNames()) {
      if (!FIELDS.contains(field)) {
        throw RestException.badRequest(
            where + " has unknown field \"" + field + "\"; expected one of " + FIELDS);
      }
    }
    Map<String, Object> keyDescription = new LinkedHashMap<>();
    Map<String, Object> valueDescription = new LinkedHashMap<>();
    byte[] key = data(node.get("key"), where + ".key", keyDescription);
    byte[] value = data(node.get("value"), where + ".value", valueDescription);
    return new Parsed(
        new ProduceRecord(
            partition(node.get("partition_id"), where),
            key,
            value,
            headers(node.get("headers"), where),
            timestamp(node.get("timestamp"), where, nowMs)),
        key == null ? null : keyDescription,
        value == null ? null : valueDescription,
        null);
  }

  /** A key or value's bytes by its type; fills {@code description} with type and size. */
  private byte[] data(JsonNode node, String where, Map<String, Object> description) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isObject()) {
      throw RestException.badRequest(where + " must be {\"type\": .., \"data\": ..}");
    }
    String type =
        node.path("type").isString()
            ? node.get("type").stringValue().toUpperCase(Locale.ROOT)
            : "JSON";
    JsonNode data = node.get("data");
    byte[] bytes;
    if (data == null || data.isNull()) {
      bytes = null;
    } else {
      bytes =
          switch (type) {
            case "JSON" -> json.writeValueAsBytes(data);
            case "STRING" -> {
              if (!data.isString()) {
                throw RestException.badRequest(where + ".data must be a string for type STRING");
              }
              yield data.stringValue().getBytes(StandardCharsets.UTF_8);
            }
            case "BINARY" -> {
              if (!data.isString()) {
                throw RestException.badRequest(where + ".data must be base64 for type BINARY");
              }
              yield base64(data.stringValue(), where + ".data");
            }
            case "AVRO", "PROTOBUF", "JSONSCHEMA" ->
                throw RestException.badRequest(
                    where
                        + " has type "
                        + type
                        + ", which needs a schema registry; Tributary has none (use JSON, BINARY"
                        + " or STRING)");
            default ->
                throw RestException.badRequest(
                    where + ".type must be JSON, BINARY or STRING, got '" + type + "'");
          };
    }
    description.put("type", type);
    description.put("size", bytes == null ? 0 : bytes.length);
    return bytes;
  }

  private static Integer partition(JsonNode node, String where) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isIntegralNumber() || !node.canConvertToInt() || node.intValue() < 0) {
      throw RestException.badRequest(where + ".partition_id must be a non-negative integer");
    }
    return node.intValue();
  }

  /** An ISO-8601 instant as REST Proxy takes it ({@code 2021-02-05T19:14:42Z}), or epoch ms. */
  private static long timestamp(JsonNode node, String where, long nowMs) {
    if (node == null || node.isNull()) {
      return nowMs;
    }
    if (node.isIntegralNumber() && node.canConvertToLong() && node.longValue() >= 0) {
      return node.longValue();
    }
    if (node.isString()) {
      try {
        long ms = Instant.parse(node.stringValue()).toEpochMilli();
        if (ms >= 0) {
          return ms;
        }
      } catch (DateTimeParseException | ArithmeticException e) {
        // refused below
      }
    }
    throw RestException.badRequest(
        where + ".timestamp must be an ISO-8601 instant (2021-02-05T19:14:42Z) or epoch ms");
  }

  private static List<Header> headers(JsonNode node, String where) {
    if (node == null || node.isNull()) {
      return List.of();
    }
    if (!node.isArray()) {
      throw RestException.badRequest(where + ".headers must be a list of {\"name\", \"value\"}");
    }
    List<Header> headers = new ArrayList<>();
    for (JsonNode header : node) {
      if (!header.isObject() || !header.path("name").isString()) {
        throw RestException.badRequest(where + ".headers entries must be {\"name\", \"value\"}");
      }
      JsonNode value = header.get("value");
      if (value != null && !value.isNull() && !value.isString()) {
        throw RestException.badRequest(where + " header values must be base64 strings or null");
      }
      headers.add(
          new Header(
              header.get("name").stringValue(),
              value == null || value.isNull()
                  ? null
                  : base64(value.stringValue(), where + " header value")));
    }
    return headers;
  }

  private static byte[] base64(String text, String where) {
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw RestException.badRequest(where + " is not valid base64: " + e.getMessage());
    }
  }
}
