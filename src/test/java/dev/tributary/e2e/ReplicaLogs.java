package dev.tributary.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads one replica's copy of a partition straight from its broker's files, {@code
 * <data-dir>/logs/<topic>-<partition>/*.log}, with kafka-clients' own reader (the reference
 * implementation of the format), bypassing Tributary's read path entirely. This is the per-replica
 * view the API does not offer: reads are always served by the leader, and a follower's copy is
 * otherwise visible only as offsets.
 *
 * <p>Read only once the cluster is quiet (no produce in flight, every replica at the same log end
 * offset): a segment being appended to may end in a partial batch. Each batch's CRC is checked.
 */
final class ReplicaLogs {
  private static final JsonMapper json = JsonMapper.builder().build();

  private ReplicaLogs() {}

  /**
   * The records of {@code topic-partition} in {@code brokerDataDir}, in file order; empty if it
   * hosts none.
   */
  static List<HistoryChecker.Entry> read(Path brokerDataDir, String topic, int partition) {
    Path dir = brokerDataDir.resolve("logs").resolve(topic + "-" + partition);
    List<HistoryChecker.Entry> entries = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return entries;
    }
    try (Stream<Path> files = Files.list(dir)) {
      for (Path segment :
          files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList()) {
        try (FileRecords records = FileRecords.open(segment.toFile(), false)) {
          for (FileChannelRecordBatch batch : records.batches()) {
            batch.ensureValid();
            for (Record record : batch) {
              entries.add(new HistoryChecker.Entry(record.offset(), jsonText(record.value())));
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + dir, e);
    }
    return entries;
  }

  /** A stored value is compact JSON text; ours are JSON strings. */
  private static String jsonText(ByteBuffer value) {
    if (value == null) {
      return "null";
    }
    byte[] bytes = new byte[value.remaining()];
    value.duplicate().get(bytes);
    return json.readTree(new String(bytes, StandardCharsets.UTF_8)).asString();
  }
}
