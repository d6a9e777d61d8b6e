package dev.tributary.log;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * {@code partition.metadata} in a partition directory (Kafka's, KIP-516): the id of the topic the
 * log belongs to. Names are reused — a topic deleted and created again gets the same directory name
 * but a new id — so a log whose id differs from the metadata's is the old topic's and must not be
 * served as the new one's.
 *
 * <pre>
 * version: 0
 * topic_id: LsVJo9NBYk3cZyTlXkSp6A
 * </pre>
 *
 * Written atomically (temp file, fsync, rename, fsync of the directory).
 */
final class PartitionMetadataFile {
  static final String FILE_NAME = "partition.metadata";

  private PartitionMetadataFile() {}

  /** The topic id recorded in {@code dir}, or empty when there is no (readable) file. */
  static Optional<String> read(Path dir) {
    Path file = dir.resolve(FILE_NAME);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    try {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (line.startsWith("topic_id:")) {
          return Optional.of(line.substring("topic_id:".length()).trim());
        }
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  static void write(Path dir, String topicId) {
    Path temp = dir.resolve(FILE_NAME + ".tmp");
    try {
      Files.createDirectories(dir);
      Files.write(
          temp, ("version: 0\ntopic_id: " + topicId + "\n").getBytes(StandardCharsets.UTF_8));
      try (var channel = FileIo.open(temp, java.nio.file.StandardOpenOption.WRITE)) {
        channel.force(true);
      }
      Files.move(temp, dir.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE);
      FileIo.fsyncDirectory(dir);
    } catch (IOException e) {
      throw new LogStorageException("cannot write " + FILE_NAME + " in " + dir, e);
    }
  }
}
