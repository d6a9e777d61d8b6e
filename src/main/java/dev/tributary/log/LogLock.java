package dev.tributary.log;

import dev.tributary.common.TopicPartition;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The lock of one partition log (concurrency note 1 in {@link PartitionLog}) and the state every
 * step under it checks: whether the log is closed and whether its directory is offline. {@link
 * #call} is the only place the lock is taken (Kafka's inLock), apart from readers waiting out a
 * truncation ({@link TruncationSequence}); every I/O failure of the log is reported through {@link
 * #storageError}, which takes the directory offline (see {@link LogDirFailureChannel}).
 */
final class LogLock {
  /** A step run under the lock that returns a value and may fail with an IOException. */
  interface Step<T> {
    T run() throws IOException;
  }

  /** A step run under the lock that may fail with an IOException. */
  interface Action {
    void run() throws IOException;
  }

  private final ReentrantLock lock = new ReentrantLock();
  private final TopicPartition topicPartition;

  /** The directory holding the log's directory: what goes offline on an I/O failure. */
  private final Path logDir;

  private final LogDirFailureChannel failures;

  /** Set once by close, delete or closeHandlers; never cleared. Guarded by {@code lock}. */
  private boolean closed;

  LogLock(TopicPartition topicPartition, Path logDir, LogDirFailureChannel failures) {
    this.topicPartition = topicPartition;
    this.logDir = logDir;
    this.failures = failures;
  }

  /** The lock itself, for {@link TruncationSequence}. */
  ReentrantLock reentrantLock() {
    return lock;
  }

  boolean isHeldByCurrentThread() {
    return lock.isHeldByCurrentThread();
  }

  /**
   * Runs {@code step} holding the lock. An IOException (or LogStorageException) becomes the
   * KafkaStorageException "{@code what} topic-partition failed" and takes the directory offline.
   */
  <T> T call(String what, Step<T> step) {
    lock.lock();
    try {
      return step.run();
    } catch (IOException | LogStorageException e) {
      throw storageError(what + " " + topicPartition, e);
    } finally {
      lock.unlock();
    }
  }

  void run(String what, Action action) {
    call(
        what,
        () -> {
          action.run();
          return null;
        });
  }

  /**
   * {@link #call} for a write: a closed log throws IllegalStateException, one in an offline
   * directory KafkaStorageException, before {@code step} runs.
   */
  <T> T callWritable(String what, Step<T> step) {
    return call(
        what,
        () -> {
          checkWritable();
          return step.run();
        });
  }

  void runWritable(String what, Action action) {
    call(
        what,
        () -> {
          checkWritable();
          action.run();
          return null;
        });
  }

  /** Marks the log closed; the caller holds the lock. */
  void markClosed() {
    closed = true;
  }

  boolean isClosed() {
    return closed;
  }

  /** Open and in an online directory: what every write needs. */
  boolean isWritable() {
    return !closed && !isOffline();
  }

  void checkOpen() {
    if (closed) {
      throw new IllegalStateException("log " + topicPartition + " is closed");
    }
  }

  /**
   * Before every write: the log must be open and its directory online (an offline directory refuses
   * writes without touching the disk).
   */
  private void checkWritable() {
    checkOpen();
    if (isOffline()) {
      throw offline(failures, logDir, "a write to " + topicPartition);
    }
  }

  boolean isOffline() {
    return failures.isOffline(logDir);
  }

  /**
   * Reports an I/O failure of {@code what} (taking the directory offline if it is the first) and
   * returns the error to throw.
   */
  KafkaStorageException storageError(String what, Throwable cause) {
    if (cause instanceof KafkaStorageException k) {
      return k;
    }
    failures.maybeAddOfflineLogDir(logDir, what, cause);
    return new KafkaStorageException(
        what + " failed (" + cause.getMessage() + "); log directory " + logDir + " is offline",
        cause);
  }

  /** The error for an operation refused because {@code logDir} is offline. */
  static KafkaStorageException offline(LogDirFailureChannel failures, Path logDir, String refused) {
    String reason =
        failures.offlineLogDir(logDir).map(LogDirFailureChannel.OfflineLogDir::reason).orElse("");
    return new KafkaStorageException(
        "Log directory " + logDir + " is offline (" + reason + "); refused " + refused, null);
  }
}
