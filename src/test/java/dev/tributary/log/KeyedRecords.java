package dev.tributary.log;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.Record;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Keyed records for compaction tests: building batches, reading a whole log back. */
final class KeyedRecords {
  private KeyedRecords() {}

  /** One stored record as a test compares it; a null value is a tombstone. */
  record Rec(long offset, long timestamp, String key, String value) {
    static Rec of(Record record) {
      return new Rec(
          record.offset(),
          record.timestamp(),
          string(record.keyBytes()),
          string(record.valueBytes()));
    }
  }

  /**
   * A batch of records all stamped {@code timestampMs}, from key, value pairs (value may be null).
   */
  static ByteBuffer batch(CompressionType compression, long timestampMs, String... keyValues) {
    List<SimpleRecord> records = new ArrayList<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      records.add(new SimpleRecord(timestampMs, bytes(keyValues[i]), bytes(keyValues[i + 1])));
    }
    return RecordBatchBuilder.build(records, compression, 0, RecordBatch.NO_PARTITION_LEADER_EPOCH);
  }

  static ByteBuffer batch(long timestampMs, String... keyValues) {
    return batch(CompressionType.NONE, timestampMs, keyValues);
  }

  /** Every record from the log start to the log end, reading across gaps as a consumer does. */
  static List<Rec> records(PartitionLog log) {
    List<Rec> result = new ArrayList<>();
    for (RecordBatch batch : batches(log)) {
      for (Record record : batch.records()) {
        result.add(Rec.of(record));
      }
    }
    return result;
  }

  /** Copies of every batch from the log start to the log end, each CRC-checked. */
  static List<RecordBatch> batches(PartitionLog log) {
    List<RecordBatch> result = new ArrayList<>();
    long next = log.logStartOffset();
    while (next < log.logEndOffset()) {
      LogReadInfo read = log.read(next, 1 << 20, Long.MAX_VALUE, true);
      if (read.isEmpty()) {
        break; // the rest up to the log end is a gap
      }
      for (RecordBatch batch : read.batches()) {
        batch.validate();
        ByteBuffer copy = ByteBuffer.allocate(batch.sizeInBytes()).put(batch.slice()).flip();
        result.add(new RecordBatch(copy));
        next = batch.nextOffset();
      }
    }
    return result;
  }

  /** What a consumer replaying {@code records} from the start ends with: key to latest value. */
  static Map<String, String> replay(List<Rec> records) {
    Map<String, String> state = new LinkedHashMap<>();
    for (Rec record : records) {
      if (record.value() == null) {
        state.remove(record.key());
      } else {
        state.put(record.key(), record.value());
      }
    }
    return state;
  }

  static byte[] bytes(String s) {
    return s == null ? null : s.getBytes(UTF_8);
  }

  static String string(byte[] b) {
    return b == null ? null : new String(b, UTF_8);
  }
}
