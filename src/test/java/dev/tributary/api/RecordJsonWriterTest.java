package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.Header;
import dev.tributary.log.record.Record;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.core.Base64Variants;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.json.JsonMapper;

/**
 * The hand-written record JSON must be byte for byte what Jackson's generator writes for the same
 * records (the reference below is the renderer it replaced), whatever the records hold: empty and
 * odd-length values, nulls, headers with names that need escaping, compressed batches, slices that
 * start and end inside a batch, several partitions in one answer.
 */
class RecordJsonWriterTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private final RecordJsonWriter writer = new RecordJsonWriter(JSON);

  @Test
  void binaryAnswersAreWhatJacksonWritesForRandomRecords() {
    for (long seed = 1; seed <= 200; seed++) {
      Random random = new Random(seed);
      List<RecordJsonWriter.Slice> slices = randomSlices(random, false);
      RecordJsonWriter.Rendered rendered = writer.renderAll(slices, EmbeddedFormat.BINARY, false);
      assertThat(text(rendered))
          .as("seed %d", seed)
          .isEqualTo(reference(slices, EmbeddedFormat.BINARY));
      assertThat(rendered.recordCount()).isEqualTo(countIn(slices));
    }
  }

  @Test
  void jsonAnswersAreWhatJacksonWritesForRandomRecords() {
    for (long seed = 1; seed <= 100; seed++) {
      Random random = new Random(seed);
      List<RecordJsonWriter.Slice> slices = randomSlices(random, true);
      assertThat(text(writer.renderAll(slices, EmbeddedFormat.JSON, false)))
          .as("seed %d", seed)
          .isEqualTo(reference(slices, EmbeddedFormat.JSON));
    }
  }

  @Test
  void numbersAtTheirLimitsAreWrittenInFull() {
    for (long timestamp : new long[] {0, 9, 10, 99, 1_700_000_000_123L, Long.MAX_VALUE, -1}) {
      ByteBuffer batch =
          RecordBatchBuilder.build(
              List.of(new SimpleRecord(timestamp, null, new byte[] {1})),
              CompressionType.NONE,
              Long.MAX_VALUE / 2,
              0);
      List<RecordJsonWriter.Slice> slices =
          List.of(new RecordJsonWriter.Slice("t", Integer.MAX_VALUE, batch, 0, Long.MAX_VALUE));
      assertThat(text(writer.renderAll(slices, EmbeddedFormat.BINARY, false)))
          .isEqualTo(reference(slices, EmbeddedFormat.BINARY));
    }
  }

  @Test
  void valuesLargerThanAChunkAndRecordsAcrossChunksAreWrittenWhole() {
    Random random = new Random(7);
    List<SimpleRecord> records = new ArrayList<>();
    for (int length :
        new int[] {JsonOutput.CHUNK_BYTES + 1, 5, 1, JsonOutput.CHUNK_BYTES * 2 + 2, 100, 0}) {
      byte[] value = new byte[length];
      random.nextBytes(value);
      records.add(new SimpleRecord(7, value, value));
    }
    for (int i = 0; i < 3000; i++) {
      records.add(new SimpleRecord(8, null, new byte[1 + i % 200]));
    }
    ByteBuffer batch = RecordBatchBuilder.build(records, CompressionType.NONE, 0, 0);
    List<RecordJsonWriter.Slice> slices =
        List.of(new RecordJsonWriter.Slice("t", 0, batch, 0, Long.MAX_VALUE));
    RecordJsonWriter.Rendered rendered = writer.renderAll(slices, EmbeddedFormat.BINARY, false);
    assertThat(rendered.body().chunks()).hasSizeGreaterThan(4);
    assertThat(text(rendered)).isEqualTo(reference(slices, EmbeddedFormat.BINARY));
    assertThat(rendered.body().length()).isEqualTo(rendered.body().toByteArray().length);
  }

  @Test
  void anAnswerWithNoRecordsIsAnEmptyArray() {
    assertThat(text(writer.renderAll(List.of(), EmbeddedFormat.BINARY, false))).isEqualTo("[]");
    ByteBuffer batch =
        RecordBatchBuilder.build(
            List.of(new SimpleRecord(5, null, new byte[] {1})), CompressionType.NONE, 10, 0);
    assertThat(text(writer.render("t", 0, batch, 11, EmbeddedFormat.BINARY))).isEqualTo("[]");
  }

  @Test
  void aValueThatIsNotJsonIsRefusedInTheJsonFormat() {
    ByteBuffer batch =
        RecordBatchBuilder.build(
            List.of(new SimpleRecord(5, null, "{\"a\":".getBytes(StandardCharsets.UTF_8))),
            CompressionType.NONE,
            0,
            0);
    assertThatThrownBy(() -> writer.render("t", 0, batch, 0, EmbeddedFormat.JSON))
        .isInstanceOf(RestException.class)
        .hasMessageContaining("offset 0 is not JSON");
  }

  private static String text(RecordJsonWriter.Rendered rendered) {
    return new String(rendered.body().toByteArray(), StandardCharsets.UTF_8);
  }

  private static List<RecordJsonWriter.Slice> randomSlices(Random random, boolean jsonValues) {
    List<RecordJsonWriter.Slice> slices = new ArrayList<>();
    int partitions = random.nextInt(4);
    for (int p = 0; p < partitions; p++) {
      ByteArrayOutputStream log = new ByteArrayOutputStream();
      long offset = random.nextInt(1000);
      long first = offset;
      int batches = 1 + random.nextInt(4);
      for (int b = 0; b < batches; b++) {
        List<SimpleRecord> records = new ArrayList<>();
        int count = 1 + random.nextInt(20);
        for (int r = 0; r < count; r++) {
          records.add(randomRecord(random, jsonValues));
        }
        CompressionType compression =
            random.nextInt(4) == 0 ? CompressionType.GZIP : CompressionType.NONE;
        ByteBuffer batch = RecordBatchBuilder.build(records, compression, offset, 0);
        log.write(batch.array(), batch.arrayOffset(), batch.remaining());
        offset += count;
      }
      long from = first + random.nextInt((int) (offset - first));
      long until = random.nextBoolean() ? Long.MAX_VALUE : from + random.nextInt(30);
      String topic = random.nextBoolean() ? "orders-" + p : "t\"\\\u00e9\u4e2d\u0001-" + p;
      slices.add(
          new RecordJsonWriter.Slice(topic, p, ByteBuffer.wrap(log.toByteArray()), from, until));
    }
    return slices;
  }

  private static SimpleRecord randomRecord(Random random, boolean jsonValues) {
    List<Header> headers = new ArrayList<>();
    int headerCount = random.nextInt(3);
    for (int h = 0; h < headerCount; h++) {
      String name = random.nextBoolean() ? "trace-id" : "na\"me\n\u00fc\u2603";
      byte[] value =
          random.nextInt(4) == 0
              ? null
              : ("v" + random.nextInt(1000) + "\u00e9\t").getBytes(StandardCharsets.UTF_8);
      headers.add(new Header(name, value));
    }
    long timestamp = 1_700_000_000_000L + random.nextInt(1_000_000);
    return new SimpleRecord(
        timestamp, randomBytes(random, jsonValues), randomBytes(random, jsonValues), headers);
  }

  private static byte[] randomBytes(Random random, boolean json) {
    if (random.nextInt(5) == 0) {
      return null;
    }
    if (json) {
      String[] values = {"1", "-2.50e3", "\"s\\u00e9\"", "{\"a\":[1,true,null]}", "[]", "\"中文\""};
      return values[random.nextInt(values.length)].getBytes(StandardCharsets.UTF_8);
    }
    byte[] bytes = new byte[random.nextInt(130)];
    random.nextBytes(bytes);
    return bytes;
  }

  private static int countIn(List<RecordJsonWriter.Slice> slices) {
    int count = 0;
    for (RecordJsonWriter.Slice slice : slices) {
      for (RecordBatch batch : BatchIterator.lenient(slice.batches().duplicate())) {
        for (Record record : batch.records()) {
          if (record.offset() >= slice.fromOffset() && record.offset() < slice.untilOffset()) {
            count++;
          }
        }
      }
    }
    return count;
  }

  /** The renderer the hand-written one replaced: Jackson's generator, field by field. */
  private static String reference(List<RecordJsonWriter.Slice> slices, EmbeddedFormat format) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator gen = JSON.createGenerator(out)) {
      gen.writeStartArray();
      for (RecordJsonWriter.Slice slice : slices) {
        for (RecordBatch batch : BatchIterator.lenient(slice.batches().duplicate())) {
          for (Record record : batch.records()) {
            if (record.offset() < slice.fromOffset() || record.offset() >= slice.untilOffset()) {
              continue;
            }
            gen.writeStartObject();
            gen.writeStringProperty("topic", slice.topic());
            gen.writeNumberProperty("partition", slice.partition());
            gen.writeNumberProperty("offset", record.offset());
            gen.writeNumberProperty("timestamp", record.timestamp());
            gen.writeName("key");
            referenceBytes(gen, record.key(), format);
            gen.writeName("value");
            referenceBytes(gen, record.value(), format);
            gen.writeName("headers");
            gen.writeStartArray();
            for (Header header : record.headers()) {
              gen.writeStartObject();
              gen.writeStringProperty("name", header.key());
              gen.writeName("value");
              if (header.value() == null) {
                gen.writeNull();
              } else if (format == EmbeddedFormat.BINARY) {
                gen.writeBinary(
                    Base64Variants.MIME_NO_LINEFEEDS, header.value(), 0, header.value().length);
              } else {
                gen.writeString(new String(header.value(), StandardCharsets.UTF_8));
              }
              gen.writeEndObject();
            }
            gen.writeEndArray();
            gen.writeEndObject();
          }
        }
      }
      gen.writeEndArray();
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static void referenceBytes(JsonGenerator gen, ByteBuffer bytes, EmbeddedFormat format) {
    if (bytes == null) {
      gen.writeNull();
      return;
    }
    byte[] array = new byte[bytes.remaining()];
    bytes.duplicate().get(array);
    if (format == EmbeddedFormat.BINARY) {
      gen.writeBinary(Base64Variants.MIME_NO_LINEFEEDS, array, 0, array.length);
    } else {
      gen.writeRawValue(new String(array, StandardCharsets.UTF_8));
    }
  }
}
