package dev.tributary.replication;

import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Record batches of string values for the replica manager's tests, and the values read back. */
final class TestBatches {
  private TestBatches() {}

  static ByteBuffer batch(String... values) {
    List<SimpleRecord> records = new ArrayList<>();
    for (String value : values) {
      records.add(new SimpleRecord(1000L, null, value.getBytes(StandardCharsets.UTF_8), List.of()));
    }
    return RecordBatchBuilder.build(records, CompressionType.NONE, 0L, -1);
  }

  static List<String> values(ByteBuffer records) {
    List<String> values = new ArrayList<>();
    for (RecordBatch batch : BatchIterator.strict(records)) {
      batch.records().forEach(r -> values.add(StandardCharsets.UTF_8.decode(r.value()).toString()));
    }
    return values;
  }
}
