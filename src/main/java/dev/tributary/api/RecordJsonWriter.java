package dev.tributary.api;

import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.Header;
import dev.tributary.log.record.Record;
import dev.tributary.log.record.RecordBatch;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.springframework.http.HttpStatus;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.json.JsonMapper;

/**
 * Renders fetched batches as the JSON array of a stateless read: {@code
 * [{"topic","partition","offset","timestamp", "key","value","headers"}]}. Streams straight from the
 * batch bytes into the response buffer; decompresses only compressed batches. Skips control batches
 * and records below the requested offset (a batch may start earlier).
 */
final class RecordJsonWriter {
  private final JsonMapper json;

  RecordJsonWriter(JsonMapper json) {
    this.json = json;
  }

  /** Result: the JSON bytes and how many records they hold. */
  record Rendered(byte[] body, int recordCount) {}

  Rendered render(
      String topic, int partition, ByteBuffer batches, long fromOffset, EmbeddedFormat format) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(256, batches.remaining() * 2));
    int count = 0;
    try (JsonGenerator gen = json.createGenerator(out)) {
      gen.writeStartArray();
      for (RecordBatch batch : BatchIterator.lenient(batches.duplicate())) {
        if (batch.isControlBatch()) {
          continue;
        }
        for (Record record : batch.records()) {
          if (record.offset() < fromOffset) {
            continue;
          }
          gen.writeStartObject();
          gen.writeStringProperty("topic", topic);
          gen.writeNumberProperty("partition", partition);
          gen.writeNumberProperty("offset", record.offset());
          gen.writeNumberProperty("timestamp", record.timestamp());
          gen.writeName("key");
          writeBytes(gen, record.key(), format, record.offset());
          gen.writeName("value");
          writeBytes(gen, record.value(), format, record.offset());
          gen.writeName("headers");
          gen.writeStartArray();
          for (Header header : record.headers()) {
            gen.writeStartObject();
            gen.writeStringProperty("name", header.key());
            gen.writeName("value");
            if (header.value() == null) {
              gen.writeNull();
            } else if (format == EmbeddedFormat.BINARY) {
              gen.writeString(Base64.getEncoder().encodeToString(header.value()));
            } else {
              gen.writeString(new String(header.value(), StandardCharsets.UTF_8));
            }
            gen.writeEndObject();
          }
          gen.writeEndArray();
          gen.writeEndObject();
          count++;
        }
      }
      gen.writeEndArray();
    }
    return new Rendered(out.toByteArray(), count);
  }

  private void writeBytes(JsonGenerator gen, ByteBuffer bytes, EmbeddedFormat format, long offset) {
    if (bytes == null) {
      gen.writeNull();
      return;
    }
    byte[] array = new byte[bytes.remaining()];
    bytes.duplicate().get(array);
    if (format == EmbeddedFormat.BINARY) {
      gen.writeString(Base64.getEncoder().encodeToString(array));
      return;
    }
    if (!isSingleJsonValue(array)) {
      throw new RestException(
          HttpStatus.NOT_ACCEPTABLE,
          40601,
          "The record at offset "
              + offset
              + " is not JSON, so it cannot be shown in the JSON format; "
              + "ask for it with 'Accept: application/vnd.kafka.binary.v2+json'");
    }
    gen.writeRawValue(
        new String(array, StandardCharsets.UTF_8)); // as stored: no rounding through a double
  }

  /**
   * True when {@code bytes} hold exactly one well-formed JSON value (checked by streaming, without
   * a tree).
   */
  private boolean isSingleJsonValue(byte[] bytes) {
    try (JsonParser parser = json.createParser(bytes)) {
      if (parser.nextToken() == null) {
        return false;
      }
      parser.skipChildren();
      return parser.nextToken() == null;
    } catch (JacksonException e) {
      return false;
    }
  }
}
