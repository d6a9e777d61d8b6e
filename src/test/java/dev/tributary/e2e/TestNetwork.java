package dev.tributary.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;

/**
 * Separate hosts for one test cluster: Linux network namespaces {@code tt-X-1..n}, each with its
 * own address {@code 198.18.X.N} on {@code eth0}, joined by the bridge {@code ttbrX} (root end of
 * each veth pair: {@code ttvX-N}). The root namespace holds {@code 198.18.X.254} on the bridge, so
 * the test JVM is a client that reaches every host. 198.18.0.0/15 is RFC 2544's benchmarking range:
 * never routed; X = 0 is left to the launcher's default.
 *
 * <p>Each namespace has lo up, IPv6 off (no router or multicast chatter), no default route, and an
 * nft table {@code inet tributary} with three chains: {@code guard}, which drops anything leaving
 * {@code eth0} for outside the subnet (belt and braces: without a route nothing can leave anyway),
 * and {@code input} / {@code output}, empty but for the faults. Faults match {@code eth0} only, so
 * a broker's calls to itself (routed over lo) never break.
 *
 * <p>A slow link ({@link #slow}) is the one fault that is not an nft rule: a {@code tbf} qdisc on
 * {@code eth0} in the host's namespace, which {@link #heal()} deletes with the rules.
 *
 * <p>Faults DROP and never reject: a refused connection reads as "that broker is down" to the
 * controller's {@code BrokerProbe}, which fences it (ADR 0010); a real partition shows timeouts.
 * Established connections stall too (no {@code ct state established} exception), as in a real
 * partition.
 *
 * <p>X is unique across JVMs the way {@link TestPorts} makes ports unique: an exclusive lock on
 * {@code <tmpdir>/tributary-test-nets/X.lock}, held until {@link #close()} (or the JVM's end).
 * Under that lock the names derived from X are this network's alone, so it first deletes whatever a
 * crashed run left under exactly those names, and never touches any other name. {@link #close()}
 * heals and removes everything; it runs from {@link E2eFixture}'s after-hooks and from a JVM
 * shutdown hook.
 *
 * <p>Needs root with {@code ip}, {@code nft} and {@code tc}; {@link #assumeAvailable()} skips a
 * test without them on a developer's machine and fails it on CI. Thread safe.
 */
final class TestNetwork implements AutoCloseable {
  static final String ROOT_HOST_SUFFIX = ".254";
  private static final int LOWEST_X = 1;
  private static final int HIGHEST_X = 254;
  private static final long COMMAND_TIMEOUT_S = 20;

  /** The interface of every host, inside its namespace (the other end of its veth). */
  private static final String DEVICE = "eth0";

  /**
   * The token bucket of a slow link, in bytes: two full frames (MTU 1500 plus headers). The
   * smallest that still passes a full-size frame, so the link is about as slow as asked even over a
   * few milliseconds (a big bucket would let a broker's fetch answer through at line rate).
   */
  private static final int SLOW_BURST_BYTES = 3_028;

  /**
   * How long a packet may wait in a slow link's queue before tbf drops it (it sizes the queue: rate
   * × this + the burst). Half a second: long enough that the fault shows as queueing delay and not
   * as loss (the lossy link is another fault), short enough that no packet waits as long as the
   * brokers' timeouts (heartbeat 0.5 s between sends, but sessions, ISR lag and {@code acks=all}
   * count in seconds), so a slow link slows calls rather than silencing them. Beyond that TCP's
   * congestion control sees drops and backs off, as on a real congested link.
   */
  private static final int SLOW_QUEUE_LATENCY_MS = 500;

  private static final Set<TestNetwork> open = ConcurrentHashMap.newKeySet();
  private static final Set<Integer> takenInThisJvm = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(TestNetwork::closeAll, "e2e-network-reaper"));
  }

  private final int x;
  private final int size;
  private final FileChannel lock;
  private boolean closed;

  private TestNetwork(int x, int size, FileChannel lock) {
    this.x = x;
    this.size = size;
    this.lock = lock;
  }

  /**
   * Skips the calling test (a developer's machine) or fails it (CI, the env var {@code CI} set)
   * when this machine cannot build namespaces: not root, or {@code ip}, {@code nft} or {@code tc}
   * missing.
   */
  static void assumeAvailable() {
    List<String> missing = missing();
    if (missing.isEmpty()) {
      return;
    }
    String message =
        "brokers on separate hosts need Linux network namespaces, which need "
            + String.join(" and ", missing)
            + " (.ci/run installs nftables and iproute2; run as root)";
    if (System.getenv("CI") != null) {
      throw new IllegalStateException("CI is set, so this test must run, but " + message);
    }
    Assumptions.abort("skipped: " + message);
  }

  /** True when this machine can build namespaces (root, {@code ip}, {@code nft} and {@code tc}). */
  static boolean available() {
    return missing().isEmpty();
  }

  private static List<String> missing() {
    List<String> missing = new ArrayList<>();
    if (!isRoot()) {
      missing.add("root (the uid is not 0)");
    }
    for (String tool : List.of("ip", "nft", "tc")) {
      if (!onPath(tool)) {
        missing.add("the '" + tool + "' command");
      }
    }
    return missing;
  }

  /** Creates {@code size} hosts (1..size) on a fresh subnet. */
  static TestNetwork create(int size) {
    if (size < 1 || size > 250) {
      throw new IllegalArgumentException("1 to 250 hosts, not " + size);
    }
    int span = HIGHEST_X - LOWEST_X + 1;
    int start = (int) (ProcessHandle.current().pid() * 31 % span);
    for (int tried = 0; tried < span; tried++) {
      int x = LOWEST_X + (start + tried) % span;
      if (!takenInThisJvm.add(x)) {
        continue;
      }
      FileChannel lock = lock(x);
      if (lock == null) {
        takenInThisJvm.remove(x);
        continue;
      }
      TestNetwork network = new TestNetwork(x, size, lock);
      network.removeLeftovers();
      if (network.subnetInUse()) {
        network.release(); // someone else's route or address (not ours: no lock, other names)
        continue;
      }
      open.add(network);
      try {
        network.build();
      } catch (RuntimeException e) {
        network.close();
        throw e;
      }
      return network;
    }
    throw new IllegalStateException("no free test subnet 198.18.X.0/24 left");
  }

  /** Every network opened in this JVM and not yet closed. */
  static Set<TestNetwork> open() {
    return Set.copyOf(open);
  }

  static void closeAll() {
    for (TestNetwork network : open()) {
      try {
        network.close();
      } catch (RuntimeException e) {
        System.err.println("cannot remove test network " + network + ": " + e);
      }
    }
  }

  int size() {
    return size;
  }

  /** The address of host {@code id} (1..size). */
  String ip(int id) {
    checkId(id);
    return subnetPrefix() + id;
  }

  /** The namespace of host {@code id}, for {@code ip netns exec} and {@code ss -N}. */
  String namespace(int id) {
    checkId(id);
    return "tt-" + x + "-" + id;
  }

  /** The root namespace's address on the bridge: where the test's own clients come from. */
  String clientIp() {
    return subnetPrefix() + "254";
  }

  String subnet() {
    return subnetPrefix() + "0/24";
  }

  // ---------------------------------------------------------------------------------- faults

  /** Cuts host {@code id} off from everyone: the other hosts and the test's clients. */
  synchronized void isolate(int id) {
    nft(id, rule("input", "iifname \"eth0\" drop") + rule("output", "oifname \"eth0\" drop"));
  }

  /**
   * Cuts host {@code id} off from {@code peers}, both directions, with the mirror rules in the
   * peers' namespaces; clients in the root namespace still reach every host.
   */
  synchronized void cut(int id, Set<Integer> peers) {
    if (peers.isEmpty() || peers.contains(id)) {
      throw new IllegalArgumentException("cut " + id + " from " + peers);
    }
    String addresses = peers.stream().map(this::ip).collect(Collectors.joining(", ", "{ ", " }"));
    nft(
        id,
        rule("input", "iifname \"eth0\" ip saddr " + addresses + " drop")
            + rule("output", "oifname \"eth0\" ip daddr " + addresses + " drop"));
    for (int peer : peers) {
      nft(
          peer,
          rule("input", "iifname \"eth0\" ip saddr " + ip(id) + " drop")
              + rule("output", "oifname \"eth0\" ip daddr " + ip(id) + " drop"));
    }
  }

  /**
   * Cuts host {@code id} off from the test's clients (the root namespace's address on the bridge)
   * only: the other hosts still reach it and it them, so it keeps every role it has.
   */
  synchronized void cutFromClients(int id) {
    nft(
        id,
        rule("input", "iifname \"eth0\" ip saddr " + clientIp() + " drop")
            + rule("output", "oifname \"eth0\" ip daddr " + clientIp() + " drop"));
  }

  /**
   * Drops every packet from host {@code from} to host {@code to}; the other direction still
   * carries. In TCP terms: new connections fail both ways (a SYN or its SYN-ACK is lost), and on an
   * established one, requests from {@code to} still arrive while the answers are lost.
   */
  synchronized void oneWay(int from, int to) {
    if (from == to) {
      throw new IllegalArgumentException("one-way from " + from + " to itself");
    }
    nft(from, rule("output", "oifname \"eth0\" ip daddr " + ip(to) + " drop"));
  }

  /**
   * Drops about {@code percent} of the packets from host {@code from} to host {@code to}, at random
   * (nft's {@code numgen random}); the other direction is untouched. A lossy link, in place of
   * {@code tc netem loss}, which this kernel lacks: TCP retransmits, so calls over it slow down and
   * some time out.
   */
  synchronized void lossy(int from, int to, int percent) {
    if (from == to || percent < 1 || percent > 100) {
      throw new IllegalArgumentException("lossy link " + from + " -> " + to + " at " + percent);
    }
    nft(
        from,
        rule(
            "output",
            "oifname \"eth0\" ip daddr "
                + ip(to)
                + " numgen random mod 100 < "
                + percent
                + " drop"));
  }

  /**
   * Makes host {@code id}'s outgoing traffic (to the other hosts and to the test's clients) a link
   * of {@code kbitPerSec}: a {@code tbf} qdisc on its {@code eth0}, replacing any earlier one.
   * Incoming traffic is untouched. A slow link, in place of {@code tc netem delay}, which this
   * kernel lacks (as it lacks {@code netem loss}): there is no fixed per-packet latency here, only
   * queueing delay, which grows with the traffic offered: an idle connection sees next to none, a
   * host sending faster than the rate sees packets wait up to {@value #SLOW_QUEUE_LATENCY_MS} ms in
   * the queue, then drops (see {@link #SLOW_QUEUE_LATENCY_MS} and {@link #SLOW_BURST_BYTES}).
   */
  synchronized void slow(int id, int kbitPerSec) {
    if (kbitPerSec < 1) {
      throw new IllegalArgumentException("slow link of host " + id + " at " + kbitPerSec);
    }
    tc(
        id,
        true,
        "qdisc",
        "replace",
        "dev",
        DEVICE,
        "root",
        "tbf",
        "rate",
        kbitPerSec + "kbit",
        "burst",
        Integer.toString(SLOW_BURST_BYTES),
        "latency",
        SLOW_QUEUE_LATENCY_MS + "ms");
  }

  /** Removes every fault (the guard stays). Idempotent. */
  synchronized void heal() {
    for (int id = 1; id <= size; id++) {
      nft(id, "flush chain inet tributary input\nflush chain inet tributary output\n");
      unslow(id);
    }
  }

  /** The fault rules now in place, one line per rule, for logs and failure messages. */
  synchronized String faults() {
    StringBuilder text = new StringBuilder();
    for (int id = 1; id <= size; id++) {
      for (String chain : List.of("input", "output")) {
        for (String rule : rules(id, chain)) {
          text.append(namespace(id)).append(' ').append(chain).append(": ").append(rule);
          text.append('\n');
        }
      }
      String qdiscs =
          tryRun("ip", "netns", "exec", namespace(id), "tc", "qdisc", "show", "dev", DEVICE);
      for (String qdisc : qdiscs.split("\n")) {
        if (qdisc.contains(" tbf ")) {
          text.append(namespace(id)).append(' ').append(DEVICE).append(": ").append(qdisc.trim());
          text.append('\n');
        }
      }
    }
    return text.toString();
  }

  /** Heals, then deletes the namespaces, veths and bridge; releases X. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      try {
        heal(); // first, so a broker still running in a namespace is not left partitioned
      } catch (RuntimeException e) {
        System.err.println("cannot heal " + this + " before removing it: " + e.getMessage());
      }
      removeLeftovers();
    } finally {
      release();
    }
  }

  @Override
  public String toString() {
    return "TestNetwork " + subnet() + " (tt-" + x + "-1.." + size + ", ttbr" + x + ")";
  }

  // ---------------------------------------------------------------------------------- building

  private void build() {
    String bridge = bridge();
    // nf_call_*tables 0: bridged frames between the hosts skip the root namespace's firewall, whose
    // FORWARD policy (on a Docker host: drop) is not ours to depend on or to change.
    run(
        "ip",
        "link",
        "add",
        bridge,
        "type",
        "bridge",
        "nf_call_iptables",
        "0",
        "nf_call_ip6tables",
        "0",
        "nf_call_arptables",
        "0");
    disableIpv6(null, bridge);
    run("ip", "addr", "add", clientIp() + "/24", "dev", bridge);
    run("ip", "link", "set", bridge, "up");
    for (int id = 1; id <= size; id++) {
      String ns = namespace(id);
      String veth = veth(id);
      run("ip", "netns", "add", ns);
      disableIpv6(ns, "all");
      disableIpv6(ns, "default");
      run("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns);
      disableIpv6(null, veth);
      run("ip", "link", "set", veth, "master", bridge, "up");
      run("ip", "-n", ns, "addr", "add", ip(id) + "/24", "dev", "eth0");
      run("ip", "-n", ns, "link", "set", "lo", "up");
      run("ip", "-n", ns, "link", "set", "eth0", "up");
      nft(
          id,
          "table inet tributary {\n"
              + "  chain guard {\n"
              + "    type filter hook output priority -10; policy accept;\n"
              + "    oifname \"eth0\" meta nfproto ipv6 drop\n"
              + "    oifname \"eth0\" ip daddr != "
              + subnet()
              + " drop\n"
              + "  }\n"
              + "  chain input { type filter hook input priority 0; policy accept; }\n"
              + "  chain output { type filter hook output priority 0; policy accept; }\n"
              + "}\n");
    }
  }

  /**
   * Deletes whatever exists under this network's names: namespaces {@code tt-X-*}, veths {@code
   * ttvX-*} and the bridge {@code ttbrX}, however many hosts the run that left them had.
   */
  private void removeLeftovers() {
    String nsPrefix = "tt-" + x + "-";
    for (String line : tryRun("ip", "netns", "list").split("\n")) {
      String name = line.split("\\s+")[0];
      if (name.startsWith(nsPrefix) && name.substring(nsPrefix.length()).matches("\\d+")) {
        String pids = tryRun("ip", "netns", "pids", name).trim();
        if (!pids.isEmpty()) {
          System.err.println(
              "test network namespace "
                  + name
                  + " still holds processes "
                  + pids.replace('\n', ' ')
                  + "; removing its name (it ends with them)");
        }
        tryRun("ip", "netns", "del", name);
      }
    }
    String vethPrefix = "ttv" + x + "-";
    for (String line : tryRun("ip", "-o", "link", "show").split("\n")) {
      String[] fields = line.split(":\\s+", 3);
      if (fields.length < 2) {
        continue;
      }
      String name = fields[1].split("@")[0];
      if ((name.startsWith(vethPrefix) && name.substring(vethPrefix.length()).matches("\\d+"))
          || name.equals(bridge())) {
        tryRun("ip", "link", "del", name);
      }
    }
  }

  /** Whether a route or address other than ours already covers this subnet. */
  private boolean subnetInUse() {
    String prefix = subnetPrefix();
    String routes = tryRun("ip", "-4", "route", "show", "table", "all");
    String addresses = tryRun("ip", "-4", "-o", "addr", "show");
    return routes.contains(prefix) || addresses.contains(prefix);
  }

  private List<String> rules(int id, String chain) {
    List<String> rules = new ArrayList<>();
    String listing =
        tryRun(
            "ip",
            "netns",
            "exec",
            namespace(id),
            "nft",
            "list",
            "chain",
            "inet",
            "tributary",
            chain);
    for (String line : listing.split("\n")) {
      String rule = line.trim();
      boolean frame =
          rule.isEmpty()
              || rule.startsWith("table ")
              || rule.startsWith("chain ")
              || rule.startsWith("type ")
              || rule.equals("}");
      if (!frame) {
        rules.add(rule);
      }
    }
    return rules;
  }

  /**
   * Deletes host {@code id}'s root qdisc on {@code eth0}, putting back the veth's default ({@code
   * noqueue}). With none set, tc refuses ("Cannot delete qdisc with handle of zero"; older kernels:
   * "No such file or directory"): nothing to heal. Any other failure is one.
   */
  private void unslow(int id) {
    String output = tc(id, false, "qdisc", "del", "dev", DEVICE, "root");
    if (output != null
        && !output.contains("handle of zero")
        && !output.contains("No such file or directory")) {
      throw new IllegalStateException(
          "tc qdisc del dev " + DEVICE + " root in " + namespace(id) + ": " + output.trim());
    }
  }

  /**
   * Runs tc in host {@code id}'s namespace. {@code mustSucceed}: its output, or a failure with it;
   * otherwise null when it exited 0 and its output when it did not.
   */
  private String tc(int id, boolean mustSucceed, String... arguments) {
    List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", namespace(id), "tc"));
    command.addAll(List.of(arguments));
    String[] line = command.toArray(String[]::new);
    if (mustSucceed) {
      return run(line);
    }
    return runForFailure(line);
  }

  private static String rule(String chain, String rule) {
    return "add rule inet tributary " + chain + " " + rule + "\n";
  }

  /** Runs an nft script in host {@code id}'s namespace, atomically. */
  private void nft(int id, String script) {
    runWithInput(script, "ip", "netns", "exec", namespace(id), "nft", "-f", "-");
  }

  private void disableIpv6(String ns, String device) {
    String key = "net.ipv6.conf." + device + ".disable_ipv6=1";
    // Best effort: a kernel without IPv6 has nothing to turn off.
    if (ns == null) {
      tryRun("sysctl", "-qw", key);
    } else {
      tryRun("ip", "netns", "exec", ns, "sysctl", "-qw", key);
    }
  }

  private String subnetPrefix() {
    return "198.18." + x + ".";
  }

  private String bridge() {
    return "ttbr" + x;
  }

  private String veth(int id) {
    return "ttv" + x + "-" + id;
  }

  private void checkId(int id) {
    if (id < 1 || id > size) {
      throw new IllegalArgumentException("host " + id + " not in 1.." + size);
    }
  }

  private synchronized void release() {
    open.remove(this);
    try {
      lock.close();
    } catch (IOException e) {
      // the lock goes with the JVM anyway
    }
    takenInThisJvm.remove(x);
  }

  private static FileChannel lock(int x) {
    try {
      Path dir = Path.of(System.getProperty("java.io.tmpdir"), "tributary-test-nets");
      Files.createDirectories(dir);
      FileChannel channel =
          FileChannel.open(
              dir.resolve(x + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock held;
      try {
        held = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        held = null;
      }
      if (held == null) {
        channel.close();
        return null; // another live JVM has it
      }
      return channel;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock test subnet " + x, e);
    }
  }

  private static boolean isRoot() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          return line.split("\\s+")[1].equals("0");
        }
      }
    } catch (IOException e) {
      return false; // not Linux
    }
    return false;
  }

  private static boolean onPath(String tool) {
    Set<String> dirs = new HashSet<>(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(":")));
    }
    return dirs.stream().anyMatch(dir -> Files.isExecutable(Path.of(dir, tool)));
  }

  /** Runs a command; fails with its output unless it exits 0. */
  private static String run(String... command) {
    return run(null, command, true);
  }

  /** Runs a command; its output, or "" when it failed (cleanup of what may not exist). */
  private static String tryRun(String... command) {
    return run(null, command, false);
  }

  /** Runs a command, feeding it {@code stdin}; fails with its output unless it exits 0. */
  private static String runWithInput(String stdin, String... command) {
    return run(stdin, command, true);
  }

  /** Runs a command; null if it exits 0, else its output (what went wrong). */
  private static String runForFailure(String... command) {
    Result result = execute(null, command);
    return result.exitValue == 0 ? null : result.output;
  }

  private record Result(int exitValue, String output) {}

  private static String run(String stdin, String[] command, boolean mustSucceed) {
    Result result = execute(stdin, command);
    if (result.exitValue != 0) {
      if (mustSucceed) {
        throw new IllegalStateException(
            String.join(" ", command)
                + " exited with "
                + result.exitValue
                + ": "
                + result.output.trim()
                + (stdin == null ? "" : "\ninput:\n" + stdin));
      }
      return "";
    }
    return result.output;
  }

  private static Result execute(String stdin, String[] command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      if (stdin != null) {
        process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
      }
      process.getOutputStream().close();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(COMMAND_TIMEOUT_S, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish");
      }
      return new Result(process.exitValue(), output);
    } catch (IOException e) {
      throw new UncheckedIOException(String.join(" ", command), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(String.join(" ", command) + " interrupted", e);
    }
  }
}
