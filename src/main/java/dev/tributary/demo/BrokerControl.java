package dev.tributary.demo;

/**
 * Crashing and restarting brokers, which HTTP alone cannot do (a killed broker answers nothing).
 * The command line uses {@link LauncherControl} ({@code ./tributary kill ID} / {@code start ID});
 * the end-to-end tests pass one over their own broker processes.
 */
public interface BrokerControl {
  /** SIGKILLs broker {@code id}; returns once its process is gone. */
  void kill(int id) throws Exception;

  /** Starts broker {@code id} again on its data; returns once it reports ready. */
  void start(int id) throws Exception;

  /** Whether broker {@code id}'s process runs (it may still be starting). */
  boolean isRunning(int id);
}
