package dev.tributary.api;

import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.Header;
import dev.tributary.log.record.Record;
import dev.tributary.log.record.RecordBatch;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.springframework.http.HttpStatus;
import tools.jackson.core.Base64Variants;
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
    return renderAll(
        List.of(new Slice(topic, partition, batches, fromOffset, Long.MAX_VALUE)), format, false);
  }

  /** Records of one partition to render: those in {@code [fromOffset, untilOffset)}. */
  record Slice(
      String topic, int partition, ByteBuffer batches, long fromOffset, long untilOffset) {}

  /**
   * One JSON array of the records of several partitions, in the order given. {@code jsonChecked}:
   * the caller already checked every key and value with {@link #rendersAsJson} (a consumer instance
   * does, to stop delivery before a record it cannot render), so it is not parsed twice.
   */
  Rendered renderAll(List<Slice> slices, EmbeddedFormat format, boolean jsonChecked) {
    int size = 256;
    for (Slice slice : slices) {
      size += slice.batches().remaining() * 5 / 2; // base64 and field names: about 2.2x a batch
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(size);
    int count = 0;
    try (JsonGenerator gen = json.createGenerator(out)) {
      gen.writeStartArray();
      for (Slice slice : slices) {
        count += writeRecords(gen, slice, format, jsonChecked);
      }
      gen.writeEndArray();
    }
    return new Rendered(out.toByteArray(), count);
  }

  private int writeRecords(
      JsonGenerator gen, Slice slice, EmbeddedFormat format, boolean jsonChecked) {
    String topic = slice.topic();
    int partition = slice.partition();
    int count = 0;
    for (RecordBatch batch : BatchIterator.lenient(slice.batches().duplicate())) {
      if (batch.isControlBatch()) {
        continue;
      }
      for (Record record : batch.records()) {
        if (record.offset() < slice.fromOffset() || record.offset() >= slice.untilOffset()) {
          continue;
        }
        gen.writeStartObject();
        gen.writeStringProperty("topic", topic);
        gen.writeNumberProperty("partition", partition);
        gen.writeNumberProperty("offset", record.offset());
        gen.writeNumberProperty("timestamp", record.timestamp());
        gen.writeName("key");
        writeBytes(gen, record.key(), format, record.offset(), jsonChecked);
        gen.writeName("value");
        writeBytes(gen, record.value(), format, record.offset(), jsonChecked);
        gen.writeName("headers");
        gen.writeStartArray();
        for (Header header : record.headers()) {
          gen.writeStartObject();
          gen.writeStringProperty("name", header.key());
          gen.writeName("value");
          if (header.value() == null) {
            gen.writeNull();
          } else if (format == EmbeddedFormat.BINARY) {
            byte[] value = header.value();
            gen.writeBinary(Base64Variants.MIME_NO_LINEFEEDS, value, 0, value.length);
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
    return count;
  }

  private void writeBytes(
      JsonGenerator gen, ByteBuffer bytes, EmbeddedFormat format, long offset, boolean checked) {
    if (bytes == null) {
      gen.writeNull();
      return;
    }
    if (format == EmbeddedFormat.BINARY && bytes.hasArray()) {
      // Base64 straight from the fetched bytes into the output: no copy, no String per record.
      gen.writeBinary(
          Base64Variants.MIME_NO_LINEFEEDS,
          bytes.array(),
          bytes.arrayOffset() + bytes.position(),
          bytes.remaining());
      return;
    }
    byte[] array = new byte[bytes.remaining()];
    bytes.duplicate().get(array);
    if (format == EmbeddedFormat.BINARY) {
      gen.writeBinary(Base64Variants.MIME_NO_LINEFEEDS, array, 0, array.length);
      return;
    }
    if (!checked && !isSingleJsonValue(array)) {
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
   * True when the record can be shown in the JSON format: its key and value are each absent or one
   * well-formed JSON value.
   */
  boolean rendersAsJson(dev.tributary.log.record.Record record) {
    return isJsonOrNull(record.key()) && isJsonOrNull(record.value());
  }

  private boolean isJsonOrNull(ByteBuffer bytes) {
    if (bytes == null) {
      return true;
    }
    byte[] array = new byte[bytes.remaining()];
    bytes.duplicate().get(array);
    return isSingleJsonValue(array);
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
