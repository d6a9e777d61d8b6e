package dev.tributary;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.BindException;
import org.apache.ratis.util.ExitUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.boot.web.server.PortInUseException;

/**
 * One Tributary broker process. Wiring lives in {@code dev.tributary.config}.
 *
 * <p>Process rules, set here before Spring starts (see docs/architecture.md, "Startup and
 * shutdown"):
 *
 * <ol>
 *   <li>A broker that cannot start exits at once with status 1, after one ERROR line that says why
 *       (and names the port when a port is taken). It never lingers half-started.
 *   <li>Ratis may not call {@code System.exit}: it does so when its gRPC port cannot be bound, on
 *       the thread that started it, i.e. {@code tributary-startup}, which Spring's shutdown hook
 *       then joins. That deadlocked: the process ignored SIGTERM and its Raft peer, whose outgoing
 *       half still worked, stayed leader of the quorum. With exits disabled the failure is an
 *       exception of {@code RatisMetadataQuorum.start}, handled like any other.
 *   <li>A shutdown (SIGTERM, or the exit after a failed start) that has not finished after {@link
 *       #SHUTDOWN_HALT_AFTER_MS} logs every thread's stack and halts with status 1: below the 30 s
 *       that {@code ./tributary stop} waits, so a stop never needs SIGKILL.
 * </ol>
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class TributaryApplication {
  private static final Logger logger = LoggerFactory.getLogger(TributaryApplication.class);

  /**
   * Longest a shutdown may take before the process halts; {@code
   * -Dtributary.shutdown-halt-after-ms} overrides.
   */
  static final long SHUTDOWN_HALT_AFTER_MS =
      Long.getLong("tributary.shutdown-halt-after-ms", 25_000);

  public static void main(String[] args) {
    ExitUtils.disableSystemExit();
    // Loading ExitUtils installed Ratis' default uncaught-exception handler, which with exits
    // disabled logs a
    // misleading "Terminating with exit status -1" and carries on. Log plainly instead (the JVM's
    // own behaviour).
    Thread.setDefaultUncaughtExceptionHandler(
        (thread, e) -> logger.error("Uncaught exception in thread {}", thread.getName(), e));
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(TributaryApplication::haltIfShutdownHangs, "tributary-halt-arm"));
    try {
      SpringApplication.run(TributaryApplication.class, args);
    } catch (Throwable e) {
      // Spring has closed the context and printed its failure analysis; say it in one line and
      // leave.
      logger.error("Broker failed to start: {}; exiting with status 1", describeStartupFailure(e));
      System.exit(1);
    }
  }

  /**
   * One line for a failed start: the port when a port is taken (Tomcat's {@link
   * PortInUseException}, or a {@link BindException} anywhere in the causes), else the innermost
   * cause.
   */
  private static String describeStartupFailure(Throwable failure) {
    Throwable root = failure;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof PortInUseException portInUse) {
        return "cannot bind the HTTP port "
            + portInUse.getPort()
            + " (server.port): it is already in use";
      }
      if (t instanceof BindException bind) {
        return failure + (t == failure ? "" : " (" + bind + ")");
      }
      root = t;
    }
    return root == failure ? String.valueOf(failure) : failure + " (caused by " + root + ")";
  }

  /**
   * Runs as a JVM shutdown hook: arms a daemon timer and returns, so it never delays a shutdown
   * that goes well.
   */
  private static void haltIfShutdownHangs() {
    Thread timer =
        new Thread(
            () -> {
              try {
                Thread.sleep(SHUTDOWN_HALT_AFTER_MS);
              } catch (InterruptedException e) {
                return;
              }
              StringBuilder threads = new StringBuilder();
              for (ThreadInfo info :
                  ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
                threads.append(
                    info); // ThreadInfo.toString: name, state, lock and (the top of) the stack
              }
              logger.error(
                  "Shutdown did not finish within {} ms; halting with status 1. Threads:\n{}",
                  SHUTDOWN_HALT_AFTER_MS,
                  threads);
              Runtime.getRuntime().halt(1);
            },
            "tributary-halt-timer");
    timer.setDaemon(true);
    timer.start();
  }
}
