package dev.tributary.server;

import dev.tributary.common.Uuid;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Properties;
import java.util.Random;

/**
 * {@code meta.properties} in the data directory, as Kafka keeps it: the cluster id and the node id
 * the directory belongs to. Written once, atomically; a directory of another node is refused rather
 * than silently reused.
 */
public record MetaProperties(String clusterId, int nodeId) {
  static final String FILE_NAME = "meta.properties";

  /**
   * Reads the directory's identity, or creates one with {@code clusterId} (a new random id when
   * null). A directory of another node or another cluster is refused.
   */
  public static MetaProperties loadOrCreate(
      Path dataDir, int nodeId, String clusterId, Random random) {
    Path file = dataDir.resolve(FILE_NAME);
    try {
      Files.createDirectories(dataDir);
      if (Files.exists(file)) {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
          properties.load(reader);
        }
        MetaProperties meta =
            new MetaProperties(
                properties.getProperty("cluster.id"),
                Integer.parseInt(properties.getProperty("node.id")));
        if (meta.nodeId != nodeId) {
          throw new IllegalStateException(
              dataDir
                  + " belongs to broker "
                  + meta.nodeId
                  + ", not broker "
                  + nodeId
                  + "; use another data dir");
        }
        if (clusterId != null && !clusterId.equals(meta.clusterId)) {
          throw new IllegalStateException(
              dataDir
                  + " belongs to cluster "
                  + meta.clusterId
                  + ", not "
                  + clusterId
                  + "; use another data dir");
        }
        return meta;
      }
      MetaProperties meta =
          new MetaProperties(
              clusterId != null ? clusterId : Uuid.random(random).toString(), nodeId);
      Properties properties = new Properties();
      properties.setProperty("version", "1");
      properties.setProperty("cluster.id", meta.clusterId);
      properties.setProperty("node.id", Integer.toString(nodeId));
      Path temp = dataDir.resolve(FILE_NAME + ".tmp");
      try (Writer writer = Files.newBufferedWriter(temp)) {
        properties.store(writer, "Tributary broker identity; do not edit");
      }
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        channel.force(true);
      }
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
      try (FileChannel directory = FileChannel.open(dataDir, StandardOpenOption.READ)) {
        directory.force(true); // make the rename itself durable
      }
      return meta;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or write " + file, e);
    }
  }
}
