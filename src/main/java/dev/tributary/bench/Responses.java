package dev.tributary.bench;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.SerializableString;
import tools.jackson.core.io.SerializedString;
import tools.jackson.databind.json.JsonMapper;

/**
 * Checks of broker responses; pure functions over status and body so that tests can feed them text.
 */
final class Responses {
  static final JsonMapper JSON = JsonMapper.builder().build();

  private Responses() {}

  /**
   * Returns {@code null} when a produce response acknowledges all {@code expectedRecords} records,
   * otherwise a short description of what was wrong (used to count and show errors).
   */
  static String checkProduce(int status, byte[] body, int expectedRecords) {
    if (status != 200) {
      return "HTTP " + status + ": " + abbreviate(new String(body, StandardCharsets.UTF_8));
    }
    int offsets = -1;
    try (JsonParser p = JSON.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return "response is not a JSON object: "
            + abbreviate(new String(body, StandardCharsets.UTF_8));
      }
      while (p.nextToken() == JsonToken.PROPERTY_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if (!"offsets".equals(name) || value != JsonToken.START_ARRAY) {
          p.skipChildren();
          continue;
        }
        offsets = 0;
        while (p.nextToken() == JsonToken.START_OBJECT) {
          offsets++;
          String error = null;
          String errorCode = null;
          while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if ("error_code".equals(field) && t != JsonToken.VALUE_NULL) {
              errorCode = p.getText();
            } else if ("error".equals(field) && t != JsonToken.VALUE_NULL) {
              error = p.getText();
            } else {
              p.skipChildren();
            }
          }
          if (errorCode != null) {
            return "error_code " + errorCode + ": " + error;
          }
        }
      }
    } catch (JacksonException e) {
      return "unparseable response: " + abbreviate(new String(body, StandardCharsets.UTF_8));
    }
    if (offsets < 0) {
      return "response has no offsets array: "
          + abbreviate(new String(body, StandardCharsets.UTF_8));
    }
    if (offsets != expectedRecords) {
      return "expected " + expectedRecords + " offsets, got " + offsets;
    }
    return null;
  }

  /** Test convenience. */
  static String checkProduce(int status, String body, int expectedRecords) {
    return checkProduce(status, body.getBytes(StandardCharsets.UTF_8), expectedRecords);
  }

  /**
   * What one fetch returned: record count, payload bytes of the values, and the offset of the last
   * record.
   */
  record FetchSummary(long records, long valueBytes, long lastOffset) {}

  /**
   * The fields of a record in a read's answer, in the order the broker writes them: the parser
   * compares each name with the expected one's bytes where they lie ({@link
   * JsonParser#nextName(SerializableString)}), instead of looking it up and comparing strings.
   */
  private static final SerializedString[] RECORD_FIELDS = {
    new SerializedString("topic"),
    new SerializedString("partition"),
    new SerializedString("offset"),
    new SerializedString("timestamp"),
    new SerializedString("key"),
    new SerializedString("value"),
    new SerializedString("headers")
  };

  private static final int OFFSET_FIELD = fieldIndex("offset");
  private static final int VALUE_FIELD = fieldIndex("value");

  private static int fieldIndex(String name) {
    for (int i = 0; i < RECORD_FIELDS.length; i++) {
      if (RECORD_FIELDS[i].getValue().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Summarizes a binary-format fetch response (a JSON array of records) with a streaming parser, as
   * it is read from {@code body}: values are measured as decoded base64 lengths without decoding
   * them. Fields may come in any order; the broker's order is only the fast path.
   */
  static FetchSummary summarizeFetch(InputStream body) {
    long records = 0;
    long valueBytes = 0;
    long lastOffset = -1;
    try (JsonParser p = JSON.createParser(body)) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        throw new IllegalStateException(
            "fetch response is not a JSON array but begins with " + p.currentToken());
      }
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.START_OBJECT) {
        records++;
        int expected = 0;
        while (true) {
          int field; // an index into RECORD_FIELDS, or -1 for a name it does not hold
          if (expected < RECORD_FIELDS.length && p.nextName(RECORD_FIELDS[expected])) {
            field = expected++;
          } else {
            if (expected == RECORD_FIELDS.length) {
              p.nextToken(); // nextName was not called to move on
            }
            if (p.currentToken() != JsonToken.PROPERTY_NAME) {
              break; // the record's END_OBJECT
            }
            field = fieldIndex(p.currentName());
          }
          JsonToken value = p.nextToken();
          if (field == OFFSET_FIELD && value == JsonToken.VALUE_NUMBER_INT) {
            lastOffset = p.getLongValue();
          } else if (field == VALUE_FIELD && value == JsonToken.VALUE_STRING) {
            valueBytes +=
                base64DecodedLength(
                    p.getStringCharacters(), p.getStringOffset(), p.getStringLength());
          } else {
            // Strings not asked for are skipped unread, not copied.
            p.skipChildren();
          }
        }
      }
      if (t != JsonToken.END_ARRAY) {
        throw new IllegalStateException("unexpected " + t + " in fetch response");
      }
    }
    return new FetchSummary(records, valueBytes, lastOffset);
  }

  static long base64DecodedLength(char[] chars, int offset, int length) {
    int padding = 0;
    if (length > 0 && chars[offset + length - 1] == '=') {
      padding++;
      if (length > 1 && chars[offset + length - 2] == '=') {
        padding++;
      }
    }
    return (long) length / 4 * 3 - padding;
  }

  static String abbreviate(String s) {
    String oneLine = s == null ? "" : s.replaceAll("\\s+", " ").trim();
    return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "...";
  }
}
