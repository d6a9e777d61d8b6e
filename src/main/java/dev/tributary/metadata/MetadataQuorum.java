package dev.tributary.metadata;

import java.util.List;
import java.util.function.Consumer;

/**
 * The replicated log of metadata records, and the image its committed records replay into. Today one
 * implementation keeps it in a local file ({@link LocalMetadataLog}, a quorum of one); the cluster issue puts it
 * on Apache Ratis. Callers see the same contract either way.
 *
 * <p>Contract: {@link #append} commits the records atomically (all or none) and in order, replays them into the
 * image, notifies listeners, then returns the new image. Listeners are called in commit order, one at a time,
 * with every image ("notification only": they must not call back into {@link #append}).
 */
public interface MetadataQuorum extends AutoCloseable {
  /** Commits {@code records} as one atomic batch; returns the image that includes them. */
  MetadataImage append(List<MetadataRecord> records);

  /** The image of everything committed so far. */
  MetadataImage image();

  /** Calls {@code listener} with the current image now and with every later one. */
  void subscribe(Consumer<MetadataImage> listener);

  @Override
  void close();
}
