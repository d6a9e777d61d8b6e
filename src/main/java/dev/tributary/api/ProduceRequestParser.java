package dev.tributary.api;

import dev.tributary.log.record.Header;
import dev.tributary.server.ProduceRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.springframework.http.HttpStatus;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
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
 *
 * <p>It reads the body as a stream of tokens, not as a tree: this is the HTTP produce path's
 * busiest code (hundreds of records per request), and a tree would build several objects per record
 * only to be thrown away. A base64 value is decoded straight from the parser's characters. A body
 * that is not JSON is refused as such (400 40001, or 40004 past a parsing limit) even where a bad
 * record comes first: before a record's refusal is answered, the rest of the body is read. Other
 * top-level fields (REST Proxy's schema ids) are skipped; of a field given twice, the last counts.
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
    // double. A record's JSON value is read as a tree from the middle of the body, so trailing
    // content is checked here, once, after the body's object rather than after each value.
    this.json =
        json.rebuild()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
  }

  List<ProduceRecord> parse(byte[] body, EmbeddedFormat format) {
    try (JsonParser parser = json.createParser(body)) {
      try {
        return records(parser, format);
      } catch (RestException refused) {
        failIfNotJson(parser); // broken JSON later in the body is reported first, as a tree would
        throw refused;
      }
    } catch (JacksonException e) {
      throw JsonBodyErrors.of(e);
    }
  }

  private List<ProduceRecord> records(JsonParser parser, EmbeddedFormat format) {
    List<ProduceRecord> records = null;
    if (parser.nextToken() == JsonToken.START_OBJECT) {
      for (String name = parser.nextName(); name != null; name = parser.nextName()) {
        JsonToken value = parser.nextToken();
        if (name.equals("records") && value == JsonToken.START_ARRAY) {
          records = new Body(parser, format).records();
        } else {
          records = name.equals("records") ? null : records;
          parser.skipChildren();
        }
      }
      failIfMoreContent(parser);
    }
    if (records == null) {
      throw RestException.badRequest("The body must be a JSON object with a \"records\" array");
    }
    return records;
  }

  /** Reads on to the end of the body's value, failing as Jackson does where it is not JSON. */
  private static void failIfNotJson(JsonParser parser) {
    while (!parser.streamReadContext().inRoot()) {
      if (parser.nextToken() == null) {
        return; // Jackson fails at an unclosed end; this only guards the loop
      }
    }
    failIfMoreContent(parser);
  }

  /** After the body's value: anything more is malformed JSON, as for every other body. */
  private static void failIfMoreContent(JsonParser parser) {
    if (parser.nextToken() != null) {
      throw new RestException(
          HttpStatus.BAD_REQUEST,
          40001,
          "Malformed JSON body: more content after the JSON value"
              + JsonBodyErrors.where(parser.currentTokenLocation()));
    }
  }

  /** One body's records array, read from its START_ARRAY to its END_ARRAY. */
  private final class Body {
    private final JsonParser parser;
    private final EmbeddedFormat format;

    /** Reused for every base64 value of the body: its characters as bytes, for the decoder. */
    private byte[] ascii = new byte[256];

    Body(JsonParser parser, EmbeddedFormat format) {
      this.parser = parser;
      this.format = format;
    }

    List<ProduceRecord> records() {
      List<ProduceRecord> result = new ArrayList<>();
      int i = 0;
      for (JsonToken token = parser.nextToken();
          token != JsonToken.END_ARRAY;
          token = parser.nextToken(), i++) {
        if (i == maxRecordsPerRequest) {
          throw tooMany(i + countRest(token));
        }
        if (token != JsonToken.START_OBJECT) {
          throw RestException.badRequest("records[" + i + "] must be a JSON object");
        }
        result.add(record(i));
      }
      return result;
    }

    /** The elements from {@code token} (the current one) to the array's end, skipped. */
    private int countRest(JsonToken token) {
      int n = 0;
      for (; token != JsonToken.END_ARRAY; token = parser.nextToken()) {
        parser.skipChildren();
        n++;
      }
      return n;
    }

    private RestException tooMany(int count) {
      return new RestException(
          HttpStatus.CONTENT_TOO_LARGE,
          41303,
          "The request has "
              + count
              + " records, more than tributary.max-records-per-request="
              + maxRecordsPerRequest
              + "; send them in several requests");
    }

    private ProduceRecord record(int i) {
      Integer partition = null;
      byte[] key = null;
      byte[] value = null;
      List<Header> headers = List.of();
      Long timestamp = null;
      for (String field = parser.nextName(); field != null; field = parser.nextName()) {
        JsonToken token = parser.nextToken();
        switch (field) {
          case "key" -> key = bytes(token, "records[" + i + "].key");
          case "value" -> value = bytes(token, "records[" + i + "].value");
          case "partition" -> partition = partition(token, i);
          case "headers" -> headers = headers(token, i);
          case "timestamp" -> timestamp = timestamp(token, i);
          default ->
              throw RestException.badRequest(
                  "records["
                      + i
                      + "] has unknown field \""
                      + field
                      + "\"; expected key, value, partition, headers, timestamp");
        }
      }
      return new ProduceRecord(partition, key, value, headers, timestamp);
    }

    private byte[] bytes(JsonToken token, String where) {
      if (token == JsonToken.VALUE_NULL) {
        return null;
      }
      if (format == EmbeddedFormat.JSON) {
        // Compact JSON text: the bytes Kafka's JSON serializer would write.
        return json.writeValueAsBytes(json.readTree(parser));
      }
      if (token != JsonToken.VALUE_STRING) {
        parser.skipChildren();
        throw RestException.badRequest(where + " must be a base64 string in the binary format");
      }
      return base64(where);
    }

    /**
     * The current string token decoded as base64, exactly as {@code
     * Base64.getDecoder().decode(String)} would (which reads the string as ISO-8859-1, so a
     * character beyond it becomes '?'), without making the string.
     */
    private byte[] base64(String where) {
      char[] chars = parser.getStringCharacters();
      int offset = parser.getStringOffset();
      int length = parser.getStringLength();
      if (ascii.length < length) {
        ascii = new byte[Math.max(length, ascii.length * 2)];
      }
      for (int k = 0; k < length; k++) {
        char c = chars[offset + k];
        ascii[k] = c <= 0xFF ? (byte) c : (byte) '?';
      }
      try {
        ByteBuffer decoded = Base64.getDecoder().decode(ByteBuffer.wrap(ascii, 0, length));
        byte[] out = decoded.array();
        return decoded.arrayOffset() == 0 && decoded.remaining() == out.length
            ? out
            : Arrays.copyOfRange(
                out,
                decoded.arrayOffset() + decoded.position(),
                decoded.arrayOffset() + decoded.limit());
      } catch (IllegalArgumentException e) {
        throw RestException.badRequest(where + " is not valid base64: " + e.getMessage());
      }
    }

    private Integer partition(JsonToken token, int i) {
      if (token == JsonToken.VALUE_NULL) {
        return null;
      }
      if (token != JsonToken.VALUE_NUMBER_INT
          || parser.getNumberType() != JsonParser.NumberType.INT
          || parser.getIntValue() < 0) {
        parser.skipChildren();
        throw RestException.badRequest(
            "records[" + i + "].partition must be a non-negative integer");
      }
      return parser.getIntValue();
    }

    private Long timestamp(JsonToken token, int i) {
      if (token == JsonToken.VALUE_NULL) {
        return null;
      }
      if (token != JsonToken.VALUE_NUMBER_INT
          || parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
          || parser.getLongValue() < 0) {
        parser.skipChildren();
        throw RestException.badRequest(
            "records[" + i + "].timestamp must be epoch milliseconds (>= 0)");
      }
      return parser.getLongValue();
    }

    private List<Header> headers(JsonToken token, int i) {
      if (token == JsonToken.VALUE_NULL) {
        return List.of();
      }
      List<Header> headers = new ArrayList<>();
      if (token == JsonToken.START_OBJECT) {
        for (String name = parser.nextName(); name != null; name = parser.nextName()) {
          headers.add(new Header(name, headerValue(parser.nextToken(), i)));
        }
      } else if (token == JsonToken.START_ARRAY) {
        for (JsonToken entry = parser.nextToken();
            entry != JsonToken.END_ARRAY;
            entry = parser.nextToken()) {
          headers.add(listedHeader(entry, i));
        }
      } else {
        throw RestException.badRequest("records[" + i + "].headers must be an object or a list");
      }
      return headers;
    }

    /** One {@code {"name": .., "value": ..}} of the list form; other fields are ignored. */
    private Header listedHeader(JsonToken entry, int i) {
      String name = null;
      byte[] value = null;
      if (entry == JsonToken.START_OBJECT) {
        for (String field = parser.nextName(); field != null; field = parser.nextName()) {
          JsonToken token = parser.nextToken();
          if (field.equals("name")) {
            name = token == JsonToken.VALUE_STRING ? parser.getString() : null;
            parser.skipChildren();
          } else if (field.equals("value")) {
            value = headerValue(token, i);
          } else {
            parser.skipChildren();
          }
        }
      }
      if (name == null) {
        throw RestException.badRequest(
            "records[" + i + "].headers entries must be {\"name\": .., \"value\": ..}");
      }
      return new Header(name, value);
    }

    private byte[] headerValue(JsonToken token, int i) {
      if (token == JsonToken.VALUE_NULL) {
        return null;
      }
      if (token != JsonToken.VALUE_STRING) {
        throw RestException.badRequest("records[" + i + "] header values must be strings or null");
      }
      if (format == EmbeddedFormat.BINARY) {
        return base64("records[" + i + "] header value");
      }
      return parser.getString().getBytes(StandardCharsets.UTF_8);
    }
  }
}
