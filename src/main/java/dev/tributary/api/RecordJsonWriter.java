package dev.tributary.api;

import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.Header;
import dev.tributary.log.record.Record;
import dev.tributary.log.record.RecordBatch;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import org.springframework.http.HttpStatus;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.json.JsonMapper;

/**
 * Renders fetched batches as the JSON array of a record read: {@code
 * [{"topic","partition","offset","timestamp", "key","value","headers"}]}, compact, as Jackson would
 * write it. Streams straight from the batch bytes into the answer's chunks ({@link JsonOutput});
 * decompresses only compressed batches. Skips control batches and records outside the slice (a
 * batch may start earlier than the offset asked for).
 */
final class RecordJsonWriter {
  /**
   * The bytes a record's JSON takes besides its topic, its numbers' digits, key and value: {@code
   * {"topic":,"partition":,"offset":,"timestamp":,"key":,"value":,"headers":[]}} and a comma.
   */
  private static final int RECORD_SHAPE_BYTES = 82;

  private static final byte[] TOPIC = JsonOutput.ascii("{\"topic\":");
  private static final byte[] PARTITION = JsonOutput.ascii(",\"partition\":");
  private static final byte[] OFFSET = JsonOutput.ascii(",\"offset\":");
  private static final byte[] TIMESTAMP = JsonOutput.ascii(",\"timestamp\":");
  private static final byte[] KEY = JsonOutput.ascii(",\"key\":");
  private static final byte[] VALUE = JsonOutput.ascii(",\"value\":");
  private static final byte[] HEADERS = JsonOutput.ascii(",\"headers\":[");
  private static final byte[] HEADER_NAME = JsonOutput.ascii("{\"name\":");

  private final JsonMapper json;

  RecordJsonWriter(JsonMapper json) {
    this.json = json;
  }

  /** Result: the JSON and how many records it holds. */
  record Rendered(RenderedJson body, int recordCount) {}

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
    JsonOutput out = new JsonOutput(expectedBytes(slices));
    out.write((byte) '[');
    int count = 0;
    for (Slice slice : slices) {
      count += writeRecords(out, slice, format, jsonChecked, count == 0);
    }
    out.write((byte) ']');
    return new Rendered(out.rendered(), count);
  }

  /**
   * About the answer's size, for its first chunk: base64 takes 4/3 of the bytes, and every record
   * its shape and numbers (headers and JSON text that needs escaping may take more chunks). The
   * record count needs a walk over the batch headers, so it is only counted when the stored bytes
   * alone do not already fill a chunk (the usual large read).
   */
  private static int expectedBytes(List<Slice> slices) {
    long stored = 0;
    for (Slice slice : slices) {
      stored += slice.batches().remaining();
    }
    if (stored * 4 / 3 >= JsonOutput.CHUNK_BYTES) {
      return JsonOutput.CHUNK_BYTES;
    }
    long bytes = 2 + stored * 4 / 3;
    for (Slice slice : slices) {
      long records = 0;
      for (RecordBatch batch : BatchIterator.lenient(slice.batches().duplicate())) {
        records += Math.max(0, batch.recordCount());
      }
      bytes += records * (RECORD_SHAPE_BYTES + slice.topic().length() + 2 + 10 + 2 * 19);
    }
    return (int) Math.min(bytes, Integer.MAX_VALUE - 16);
  }

  private int writeRecords(
      JsonOutput out, Slice slice, EmbeddedFormat format, boolean jsonChecked, boolean first) {
    byte[] recordStart = recordStart(slice.topic(), slice.partition());
    int count = 0;
    for (RecordBatch batch : BatchIterator.lenient(slice.batches().duplicate())) {
      if (batch.isControlBatch()) {
        continue;
      }
      for (Iterator<Record> records = batch.recordIterator(); records.hasNext(); ) {
        Record record = records.next();
        if (record.offset() < slice.fromOffset() || record.offset() >= slice.untilOffset()) {
          continue;
        }
        if (!first || count > 0) {
          out.write((byte) ',');
        }
        out.write(recordStart);
        out.writeNumber(record.offset());
        out.write(TIMESTAMP);
        out.writeNumber(record.timestamp());
        out.write(KEY);
        writeBytes(out, record.key(), format, record.offset(), jsonChecked);
        out.write(VALUE);
        writeBytes(out, record.value(), format, record.offset(), jsonChecked);
        out.write(HEADERS);
        writeHeaders(out, record.headers(), format);
        out.write((byte) ']');
        out.write((byte) '}');
        count++;
      }
    }
    return count;
  }

  /** What every record of a partition starts with: {@code {"topic":T,"partition":P,"offset":}. */
  private static byte[] recordStart(String topic, int partition) {
    JsonOutput start = new JsonOutput(64);
    start.write(TOPIC);
    start.write(JsonOutput.quoted(topic));
    start.write(PARTITION);
    start.writeNumber(partition);
    start.write(OFFSET);
    return start.rendered().toByteArray();
  }

  private static void writeHeaders(JsonOutput out, List<Header> headers, EmbeddedFormat format) {
    boolean firstHeader = true;
    for (Header header : headers) {
      if (!firstHeader) {
        out.write((byte) ',');
      }
      firstHeader = false;
      out.write(HEADER_NAME);
      out.write(JsonOutput.quoted(header.key()));
      out.write(VALUE);
      byte[] value = header.value();
      if (value == null) {
        out.writeNull();
      } else if (format == EmbeddedFormat.BINARY) {
        out.writeBase64(value, 0, value.length);
      } else {
        out.write(JsonOutput.quoted(new String(value, StandardCharsets.UTF_8)));
      }
      out.write((byte) '}');
    }
  }

  private void writeBytes(
      JsonOutput out, ByteBuffer bytes, EmbeddedFormat format, long offset, boolean checked) {
    if (bytes == null) {
      out.writeNull();
      return;
    }
    if (format == EmbeddedFormat.BINARY) {
      out.writeBase64(bytes);
      return;
    }
    byte[] array = new byte[bytes.remaining()];
    bytes.duplicate().get(array);
    if (!checked && !isSingleJsonValue(array)) {
      throw new RestException(
          HttpStatus.NOT_ACCEPTABLE,
          40601,
          "The record at offset "
              + offset
              + " is not JSON, so it cannot be shown in the JSON format; "
              + "ask for it with 'Accept: application/vnd.kafka.binary.v2+json'");
    }
    // As stored (no rounding through a double); through a String so bytes that are not UTF-8
    // come out as U+FFFD, as they did when Jackson wrote them.
    out.write(new String(array, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8));
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
