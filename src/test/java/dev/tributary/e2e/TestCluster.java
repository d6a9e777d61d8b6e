package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A cluster of real broker processes on loopback (or on the hosts of a {@link TestNetwork}: {@link
 * #onHosts}) for the end-to-end tests: HTTP and Raft ports from {@link TestPorts}, one quorum of
 * voters, a shared cluster id and secret, each broker's data under {@code dataDir/broker-N} and its
 * log at {@code logDir/broker-N.log}. Restarting a broker starts a new process on the same ports,
 * data and log file.
 */
final class TestCluster implements AutoCloseable {
  static final String CLUSTER_ID = "aXQtY2x1c3Rlci1pZDAx";
  static final String SECRET = "it-secret-0123456789";

  /** The bootstrap admin API key of a cluster started with {@link #SECURITY_ON}. */
  static final String ADMIN_TOKEN = "admin.it-admin-secret-0123456789abcdefghijklmn";

  /**
   * Broker settings that turn client authentication on, with {@link #ADMIN_TOKEN} as the bootstrap
   * key (its SHA-256 below) of the super user User:admin.
   */
  static final List<String> SECURITY_ON =
      List.of(
          "--tributary.security.enabled=true",
          "--tributary.security.bootstrap-api-key=admin:"
              + "33fe89e88fd446a77a3d9a82fe2122d4643c03914ba4e7708f811fbb0a20f415");

  /** Concurrent: load threads iterate it while {@link #addListener} adds a broker. */
  private final Map<Integer, BrokerProcess> brokers = new ConcurrentSkipListMap<>();

  private final Map<Integer, Integer> raftPorts = new ConcurrentSkipListMap<>();
  private final Path dataDir;
  private final Path logDir;
  private final List<String> commonArgs;

  TestCluster(Path dataDir, Path logDir, int size) {
    this(dataDir, logDir, size, List.of());
  }

  /**
   * @param extraArgs {@code --name=value} settings given to every broker
   */
  TestCluster(Path dataDir, Path logDir, int size, List<String> extraArgs) {
    this(dataDir, logDir, size, extraArgs, null);
  }

  /**
   * A cluster of {@code network.size()} brokers on separate hosts: broker N runs in host N's
   * namespace and listens on (and advertises) host N's address; the voters are {@code N@IP:port}.
   * Ports still come from {@link TestPorts}, so they differ between brokers as on loopback.
   */
  static TestCluster onHosts(
      TestNetwork network, Path dataDir, Path logDir, List<String> extraArgs) {
    return new TestCluster(dataDir, logDir, network.size(), extraArgs, network);
  }

  private TestCluster(
      Path dataDir, Path logDir, int size, List<String> extraArgs, TestNetwork network) {
    Map<Integer, Integer> httpPorts = new TreeMap<>();
    StringBuilder voters = new StringBuilder();
    for (int id = 1; id <= size; id++) {
      httpPorts.put(id, TestPorts.next());
      String host = network == null ? "127.0.0.1" : network.ip(id);
      raftPorts.put(id, TestPorts.next());
      voters.append(id == 1 ? "" : ",").append(id).append('@').append(host).append(':');
      voters.append(raftPorts.get(id));
    }
    List<String> args =
        new ArrayList<>(
            List.of(
                "--tributary.cluster-id=" + CLUSTER_ID,
                "--tributary.cluster-secret=" + SECRET,
                "--tributary.controller.quorum-voters=" + voters));
    args.addAll(extraArgs);
    this.dataDir = dataDir;
    this.logDir = logDir;
    this.commonArgs = List.copyOf(args);
    httpPorts.forEach(
        (id, port) ->
            brokers.put(
                id,
                new BrokerProcess(
                    dataDir.resolve("broker-" + id),
                    id,
                    port,
                    logDir.resolve("broker-" + id + ".log"),
                    args,
                    network == null ? "127.0.0.1" : network.ip(id),
                    network == null ? null : network.namespace(id))));
  }

  /**
   * Starts every broker that is not running, all at once, and waits until all are ready (they need
   * each other to elect a controller).
   */
  TestCluster startAll() {
    for (BrokerProcess broker : brokers.values()) {
      if (!broker.isAlive()) {
        broker.launch();
      }
    }
    brokers.values().forEach(BrokerProcess::awaitReady);
    return this;
  }

  /**
   * Whatever a test left behind: resumes paused brokers, then starts the stopped ones ({@link
   * #startAll}).
   */
  TestCluster healAll() {
    for (BrokerProcess broker : brokers.values()) {
      if (broker.isPaused()) {
        broker.resume();
      }
    }
    return startAll();
  }

  /**
   * Starts the next broker (on loopback) as {@code ./tributary add-broker} does: a listener of the
   * metadata quorum that the running voters have never heard of; waits until it is ready. It is in
   * {@link #all} from then on, as a client learns of a broker once it is registered.
   */
  BrokerProcess addListener() {
    int id = brokers.size() + 1;
    raftPorts.put(id, TestPorts.next());
    List<String> args = new ArrayList<>(commonArgs);
    args.add("--tributary.controller.quorum-listeners=" + id + "@127.0.0.1:" + raftPorts.get(id));
    BrokerProcess broker =
        new BrokerProcess(
            dataDir.resolve("broker-" + id),
            id,
            TestPorts.next(),
            logDir.resolve("broker-" + id + ".log"),
            args,
            "127.0.0.1",
            null);
    broker.launch();
    try {
      broker.awaitReady();
    } catch (RuntimeException | Error e) {
      try {
        broker.close(); // not in the map yet: close() of the cluster would leave it running
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
      }
      throw e;
    }
    brokers.put(id, broker);
    return broker;
  }

  /** Starts broker {@code id} again on its data and waits until it is ready. */
  BrokerProcess restart(int id) {
    return brokers.get(id).start();
  }

  /** The port of broker {@code id}'s Raft (quorum) listener. */
  int raftPort(int id) {
    return raftPorts.get(id);
  }

  BrokerProcess get(int id) {
    return brokers.get(id);
  }

  Collection<BrokerProcess> all() {
    return brokers.values();
  }

  void killAll() throws InterruptedException {
    for (BrokerProcess broker : brokers.values()) {
      broker.kill();
    }
  }

  /**
   * SIGTERMs the running brokers one by one; each must exit cleanly (0, or 143 for "ended by
   * SIGTERM").
   */
  void stopAll() throws InterruptedException {
    for (BrokerProcess broker : brokers.values()) {
      if (broker.isAlive()) {
        assertThat(broker.stop())
            .as("exit code of broker %d after SIGTERM", broker.brokerId())
            .isIn(0, 143);
      }
    }
  }

  /** Writes a {@code ====} line into every broker's log. */
  void mark(String what) {
    brokers.values().forEach(broker -> broker.mark(what));
  }

  @Override
  public void close() throws InterruptedException {
    for (BrokerProcess broker : brokers.values()) {
      broker.close();
    }
  }
}
