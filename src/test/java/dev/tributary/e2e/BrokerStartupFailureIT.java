package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker that cannot start exits at once, non-zero, with one ERROR line naming what it could not
 * bind; and SIGTERM ends a broker that is still starting. The regression these guard against: a
 * broker whose Raft port was taken deadlocked inside Ratis' {@code System.exit(1)}, stayed the
 * quorum's leader through its outgoing connections while its own startup never finished, and
 * ignored SIGTERM.
 */
class BrokerStartupFailureIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();

  /**
   * A failed start must end the process well inside this, which covers a JVM start on a busy 2-core
   * machine.
   */
  private static final Duration EXIT_WITHIN = Duration.ofSeconds(45);

  @TempDir Path tmp;

  @Test
  void aBrokerWhoseRaftPortIsTakenExitsAtOnceNamingThePort() throws Exception {
    List<Integer> raftPorts = TestPorts.next(3);
    try (ServerSocket squatter = listenOn(raftPorts.get(0))) {
      BrokerProcess broker = clusterMember(1, raftPorts);
      broker.launch();
      int exitCode = awaitExit(broker);

      assertThat(exitCode).as("exit code; see " + broker.logFile()).isEqualTo(1);
      String port = "127.0.0.1:" + raftPorts.get(0);
      assertThat(errorLines(broker))
          .as("an ERROR line naming the Raft port " + port + " in " + broker.logFile())
          .anySatisfy(
              line ->
                  assertThat(line)
                      .contains("failed to start")
                      .contains("cannot bind")
                      .contains(port));
    }
  }

  @Test
  void aBrokerWhoseHttpPortIsTakenExitsAtOnceNamingThePort() throws Exception {
    int httpPort = TestPorts.next();
    try (ServerSocket squatter = listenOn(httpPort)) {
      BrokerProcess broker =
          new BrokerProcess(
              tmp.resolve("broker-1"),
              1,
              httpPort,
              e2e.logDir().resolve("broker-1.log"),
              List.of());
      broker.launch();
      int exitCode = awaitExit(broker);

      assertThat(exitCode).as("exit code; see " + broker.logFile()).isEqualTo(1);
      assertThat(errorLines(broker))
          .as("an ERROR line naming the HTTP port " + httpPort + " in " + broker.logFile())
          .anySatisfy(
              line ->
                  assertThat(line).contains("failed to start").contains("HTTP port " + httpPort));
    }
  }

  @Test
  void sigtermEndsABrokerThatIsStillWaitingForAController() throws Exception {
    BrokerProcess broker =
        clusterMember(1, TestPorts.next(3)); // its two peers never start: no majority
    broker.launch();
    await("broker 1 waiting for a controller (log: " + broker.logFile() + ")")
        .atMost(EXIT_WITHIN)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              assertThat(broker.isAlive()).as("broker alive; see " + broker.logFile()).isTrue();
              return Files.readString(broker.logFile()).contains("still waiting after");
            });

    long stopStartNanos = System.nanoTime();
    int exitCode = broker.stop();
    long stopMs = (System.nanoTime() - stopStartNanos) / 1_000_000;

    assertThat(exitCode).as("exit code after SIGTERM; see " + broker.logFile()).isEqualTo(143);
    // Well below the broker's own halt timer (25 s): the shutdown itself ended it, not the timer.
    assertThat(stopMs).as("ms from SIGTERM to exit").isLessThan(15_000);
    assertThat(errorLines(broker)).as("ERROR lines in " + broker.logFile()).isEmpty();
  }

  /** Broker {@code id} of a quorum on {@code raftPorts} (voters 1..n), on a fresh HTTP port. */
  private BrokerProcess clusterMember(int id, List<Integer> raftPorts) {
    StringBuilder voters = new StringBuilder();
    for (int i = 0; i < raftPorts.size(); i++) {
      voters.append(i == 0 ? "" : ",").append(i + 1).append("@127.0.0.1:").append(raftPorts.get(i));
    }
    return new BrokerProcess(
        tmp.resolve("broker-" + id),
        id,
        TestPorts.next(),
        e2e.logDir().resolve("broker-" + id + ".log"),
        List.of(
            "--tributary.cluster-id=" + TestCluster.CLUSTER_ID,
            "--tributary.cluster-secret=" + TestCluster.SECRET,
            "--tributary.controller.quorum-voters=" + voters));
  }

  private static ServerSocket listenOn(int port) throws IOException {
    ServerSocket socket = new ServerSocket();
    socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    return socket;
  }

  private static int awaitExit(BrokerProcess broker) {
    await("broker " + broker.brokerId() + " exits (log: " + broker.logFile() + ")")
        .atMost(EXIT_WITHIN)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> !broker.isAlive());
    return broker.exitValue();
  }

  private static List<String> errorLines(BrokerProcess broker) throws IOException {
    return Files.readAllLines(broker.logFile()).stream()
        .filter(line -> line.contains(" ERROR "))
        .toList();
  }
}
