package dev.tributary.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Where every I/O failure of a log directory is reported (Kafka's LogDirFailureChannel): the first
 * report takes the directory offline for the rest of this process's life, and the listeners hear of
 * it exactly once. From then on the logs in it refuse every write (appends, truncation, retention,
 * flushes, checkpoints) without touching the disk, and keep serving reads of what they had made
 * visible before (docs/adr/0015-offline-log-dir.md). Only a restart brings a directory back, after
 * log recovery.
 *
 * <p>Listeners are a notification only: they run on the thread that hit the failure, possibly
 * holding a {@link PartitionLog}'s lock, so they must not block or take locks; they hand the work
 * to another thread.
 *
 * <p>Invariant: a directory, once offline, never goes back online in this channel.
 *
 * <p>Concurrency: thread-safe; {@link #maybeAddOfflineLogDir} is atomic per directory.
 */
public final class LogDirFailureChannel {
  private static final System.Logger LOG = System.getLogger(LogDirFailureChannel.class.getName());

  /** An offline directory, with the first failure that took it offline. */
  public record OfflineLogDir(Path dir, String reason) {}

  private final ConcurrentHashMap<Path, OfflineLogDir> offline = new ConcurrentHashMap<>();
  private final List<Consumer<OfflineLogDir>> listeners = new CopyOnWriteArrayList<>();

  /** Calls {@code listener} once for every directory that goes offline after this call. */
  public void addListener(Consumer<OfflineLogDir> listener) {
    listeners.add(listener);
  }

  /**
   * Takes {@code dir} offline because {@code what} failed with {@code cause}; the first report per
   * directory wins, later ones change nothing.
   *
   * @return true if this report took it offline
   */
  public boolean maybeAddOfflineLogDir(Path dir, String what, Throwable cause) {
    Path key = normalize(dir);
    String reason = what + " failed: " + rootMessage(cause);
    OfflineLogDir entry = new OfflineLogDir(key, reason);
    if (offline.putIfAbsent(key, entry) != null) {
      return false;
    }
    LOG.log(
        System.Logger.Level.ERROR,
        "Log directory " + key + " is offline: " + reason + " (restart the broker to recover it)",
        cause);
    for (Consumer<OfflineLogDir> listener : listeners) {
      listener.accept(entry);
    }
    return true;
  }

  public boolean isOffline(Path dir) {
    return offline.containsKey(normalize(dir));
  }

  public Optional<OfflineLogDir> offlineLogDir(Path dir) {
    return Optional.ofNullable(offline.get(normalize(dir)));
  }

  public Collection<OfflineLogDir> offlineLogDirs() {
    return List.copyOf(offline.values());
  }

  private static Path normalize(Path dir) {
    return dir.toAbsolutePath().normalize();
  }

  /** The first I/O error in the chain, e.g. "IOException: No space left on device". */
  private static String rootMessage(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof IOException) {
        return t.getClass().getSimpleName() + ": " + t.getMessage();
      }
    }
    return cause == null ? "unknown" : cause.getClass().getSimpleName() + ": " + cause.getMessage();
  }
}
