package dev.tributary.log;

import dev.tributary.common.TopicPartition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A file of per-partition offsets in Kafka's checkpoint text format:
 *
 * <pre>
 * 0                 version
 * 2                 number of entries
 * orders 0 120      topic partition offset
 * orders 1 98
 * </pre>
 *
 * Written atomically: a {@code .tmp} sibling is written and fsynced, renamed over the file with
 * ATOMIC_MOVE, and the directory fsynced, so a crash leaves either the old or the new file, never a
 * torn one.
 */
final class OffsetCheckpointFile {
  static final int VERSION = 0;

  private final Path file;

  OffsetCheckpointFile(Path file) {
    this.file = file;
  }

  Path file() {
    return file;
  }

  void write(Map<TopicPartition, Long> offsets) throws IOException {
    StringBuilder text =
        new StringBuilder().append(VERSION).append('\n').append(offsets.size()).append('\n');
    for (Map.Entry<TopicPartition, Long> entry : offsets.entrySet()) {
      TopicPartition tp = entry.getKey();
      text.append(tp.topic())
          .append(' ')
          .append(tp.partition())
          .append(' ')
          .append(entry.getValue())
          .append('\n');
    }
    FileIo.writeAtomically(file, text.toString());
  }

  /**
   * The offsets in the file; empty if it does not exist.
   *
   * @throws IOException if it cannot be read or is malformed (the message says where)
   */
  Map<TopicPartition, Long> read() throws IOException {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return Map.of();
    }
    try {
      if (lines.size() < 2 || Integer.parseInt(lines.get(0).trim()) != VERSION) {
        throw new IOException("checkpoint " + file + " has a missing or unknown version line");
      }
      int count = Integer.parseInt(lines.get(1).trim());
      if (count < 0 || lines.size() != count + 2) {
        throw new IOException(
            "checkpoint "
                + file
                + " announces "
                + count
                + " entries but has "
                + (lines.size() - 2));
      }
      Map<TopicPartition, Long> offsets = new HashMap<>();
      for (int i = 2; i < lines.size(); i++) {
        String[] fields = lines.get(i).trim().split(" ");
        if (fields.length != 3) {
          throw new IOException(
              "checkpoint " + file + " line " + (i + 1) + " is malformed: " + lines.get(i));
        }
        long offset = Long.parseLong(fields[2]);
        if (offset < 0) {
          throw new IOException(
              "checkpoint " + file + " line " + (i + 1) + " has a negative offset");
        }
        offsets.put(new TopicPartition(fields[0], Integer.parseInt(fields[1])), offset);
      }
      return offsets;
    } catch (IllegalArgumentException e) {
      throw new IOException("checkpoint " + file + " is malformed: " + e.getMessage(), e);
    }
  }
}
