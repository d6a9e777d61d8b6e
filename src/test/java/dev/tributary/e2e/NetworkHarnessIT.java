package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness itself ({@link TestNetwork}), without brokers: three hosts, a listener in host 2's
 * namespace (a JDK single-file program, started through {@code ip netns exec}) and one in the root
 * namespace on the bridge; connections made from host 1 with bash's {@code /dev/tcp}. A fault must
 * make a connection time out, never be refused; heal must restore it (and remove a slow link's
 * qdisc); close must leave none of the network's names behind.
 */
class NetworkHarnessIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();

  /** What bash prints for a connection that was answered, refused, or timed out. */
  private static final String CONNECTED = "connected";

  private static final String TIMED_OUT = "timed out";

  @TempDir static Path dir;
  static TestNetwork network;
  static Process listener;
  static ServerSocket rootListener;
  static int port;

  @BeforeAll
  static void start() throws Exception {
    TestNetwork.assumeAvailable();
    network = TestNetwork.create(3);
    port = TestPorts.next();
    Path source = dir.resolve("Listen.java");
    Files.writeString(
        source,
        "public class Listen { public static void main(String[] a) throws Exception {"
            + " var s = new java.net.ServerSocket();"
            + " s.bind(new java.net.InetSocketAddress(a[0], Integer.parseInt(a[1])));"
            + " System.out.println(\"listening\"); System.out.flush();"
            + " while (true) { s.accept().close(); } } }");
    listener =
        new ProcessBuilder(
                "ip",
                "netns",
                "exec",
                network.namespace(2),
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                source.toString(),
                network.ip(2),
                Integer.toString(port))
            .redirectErrorStream(true)
            .start();
    byte[] first = listener.getInputStream().readNBytes("listening".length());
    assertThat(new String(first, StandardCharsets.UTF_8)).isEqualTo("listening");
    rootListener = new ServerSocket();
    rootListener.bind(new InetSocketAddress(InetAddress.getByName(network.clientIp()), port));
    Thread accept =
        new Thread(
            () -> {
              while (!rootListener.isClosed()) {
                try (Socket ignored = rootListener.accept()) {
                  // accepted: that is all a connection test needs
                } catch (IOException e) {
                  return;
                }
              }
            },
            "root-listener");
    accept.setDaemon(true);
    accept.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (listener != null) {
      listener.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    if (rootListener != null) {
      rootListener.close();
    }
    if (network != null) {
      network.close();
    }
  }

  @BeforeEach
  void healed() {
    network.heal();
  }

  @Test
  void aProcessStartedThroughIpNetnsExecKeepsItsPid() throws Exception {
    String cmdline =
        Files.readString(Path.of("/proc/" + listener.pid() + "/cmdline")).replace('\0', ' ');
    assertThat(cmdline).as("the command line of pid %d", listener.pid()).contains("Listen.java");
    assertThat(cmdline).doesNotStartWith("ip ");
  }

  @Test
  void hostsReachEachOtherAndTheRootNamespaceUntilIsolated() throws Exception {
    assertThat(connect(1, network.ip(2))).isEqualTo(CONNECTED);
    assertThat(connect(1, network.clientIp())).isEqualTo(CONNECTED);

    network.isolate(2);
    assertThat(connect(1, network.ip(2))).as("a dropped SYN, not a refusal").isEqualTo(TIMED_OUT);
    assertThat(connect(1, network.clientIp())).isEqualTo(CONNECTED);

    network.heal();
    assertThat(connect(1, network.ip(2))).isEqualTo(CONNECTED);
  }

  @Test
  void aCutLeavesTheRootNamespaceClientItsAccess() throws Exception {
    network.cut(1, Set.of(2));
    assertThat(connect(1, network.ip(2))).isEqualTo(TIMED_OUT);
    assertThat(connect(1, network.clientIp())).isEqualTo(CONNECTED);
    assertThat(network.faults()).contains(network.namespace(1)).contains(network.namespace(2));
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(network.ip(2), port), 2_000);
      assertThat(socket.isConnected()).as("the root namespace reaches a cut host").isTrue();
    }
  }

  @Test
  void aOneWayDropBreaksNewConnectionsInTheOtherDirectionToo() throws Exception {
    network.oneWay(2, 1); // host 2's SYN-ACKs to host 1 are lost
    assertThat(connect(1, network.ip(2))).isEqualTo(TIMED_OUT);
    assertThat(connect(3, network.ip(2))).isEqualTo(CONNECTED);
  }

  /**
   * What a slow link installs, not how slow it is: a timed assertion on a shared machine would be
   * flaky, and tbf's shaping is the kernel's to get right.
   */
  @Test
  void aSlowLinkIsATbfQdiscOnTheHostsInterfaceUntilHealed() throws Exception {
    network.slow(2, 500);
    network.slow(2, 300); // replaces, does not stack
    assertThat(qdiscs(2)).contains("tbf").contains("300Kbit").doesNotContain("500Kbit");
    assertThat(qdiscs(1)).doesNotContain("tbf");
    assertThat(network.faults()).contains(network.namespace(2) + " eth0: qdisc tbf");
    assertThat(connect(1, network.ip(2))).as("slow, not cut").isEqualTo(CONNECTED);

    network.heal();
    assertThat(qdiscs(2)).doesNotContain("tbf");
    assertThat(network.faults()).isEmpty();
    network.heal(); // nothing left to delete: still fine
  }

  @Test
  void nothingLeavesTheSubnet() throws Exception {
    assertThat(connect(1, "192.0.2.1")).isNotEqualTo(CONNECTED);
  }

  @Test
  void closeRemovesEveryNameItMade() throws Exception {
    TestNetwork other = TestNetwork.create(2);
    String ns = other.namespace(1);
    String bridge = "ttbr" + other.subnet().split("\\.")[2];
    assertThat(output("ip", "netns", "list")).contains(ns);
    other.close();
    assertThat(output("ip", "netns", "list")).doesNotContain(ns + " ").doesNotContain(ns + "\n");
    assertThat(output("ip", "-o", "link", "show")).doesNotContain(" " + bridge + ":");
    assertThat(TestNetwork.open()).doesNotContain(other).contains(network);
  }

  /**
   * A TCP connect from host {@code from} to {@code ip:port}, bounded by 1 s (on one bridge an
   * answer takes microseconds).
   */
  private static String connect(int from, String ip) throws Exception {
    String script =
        "timeout 1 bash -c '</dev/tcp/"
            + ip
            + "/"
            + port
            + "' 2>/dev/null; rc=$?; "
            + "if [ $rc = 0 ]; then echo "
            + CONNECTED
            + "; elif [ $rc = 124 ]; then echo '"
            + TIMED_OUT
            + "'; else echo failed $rc; fi";
    return output("ip", "netns", "exec", network.namespace(from), "bash", "-c", script).trim();
  }

  /** Host {@code id}'s qdiscs on eth0, read with tc itself (not through TestNetwork). */
  private static String qdiscs(int id) throws Exception {
    return output(
        "ip", "netns", "exec", network.namespace(id), "tc", "qdisc", "show", "dev", "eth0");
  }

  private static String output(String... command) throws Exception {
    Process p = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    await(String.join(" ", command)).atMost(Duration.ofSeconds(20)).until(() -> !p.isAlive());
    return out;
  }
}
