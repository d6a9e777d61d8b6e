package dev.tributary.e2e;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A cluster of real broker processes on loopback for the end-to-end tests: free HTTP and Raft ports, one quorum
 * of voters, a shared cluster id and secret, each broker's data under {@code dir/broker-N}. Restarting a broker
 * starts a new process on the same ports and data.
 */
final class TestCluster implements AutoCloseable {
  static final String CLUSTER_ID = "aXQtY2x1c3Rlci1pZDAx";
  static final String SECRET = "it-secret-0123456789";

  private final Path dir;
  private final Map<Integer, Integer> httpPorts = new TreeMap<>();
  private final String voters;
  private final Map<Integer, BrokerProcess> brokers = new ConcurrentHashMap<>();

  TestCluster(Path dir, int size) throws IOException {
    this.dir = dir;
    StringBuilder quorum = new StringBuilder();
    for (int id = 1; id <= size; id++) {
      httpPorts.put(id, BrokerProcess.freePort());
      quorum.append(id == 1 ? "" : ",").append(id).append("@127.0.0.1:").append(BrokerProcess.freePort());
    }
    this.voters = quorum.toString();
  }

  /** Starts every broker at once and waits until all are ready (they need each other to elect a controller). */
  TestCluster startAll() throws IOException {
    for (int id : httpPorts.keySet()) {
      brokers.put(id, process(id).launch());
    }
    brokers.values().forEach(BrokerProcess::awaitReady);
    return this;
  }

  /** Starts broker {@code id} again on its data and waits until it is ready. */
  BrokerProcess restart(int id) throws IOException {
    BrokerProcess broker = process(id).start();
    brokers.put(id, broker);
    return broker;
  }

  BrokerProcess get(int id) {
    return brokers.get(id);
  }

  void killAll() throws InterruptedException {
    for (BrokerProcess broker : brokers.values()) {
      broker.kill();
    }
  }

  void stopAll() throws InterruptedException {
    for (BrokerProcess broker : brokers.values()) {
      broker.stop();
    }
  }

  private BrokerProcess process(int id) {
    return new BrokerProcess(
        dir.resolve("broker-" + id), id, httpPorts.get(id),
        List.of(
            "--tributary.cluster-id=" + CLUSTER_ID, "--tributary.cluster-secret=" + SECRET,
            "--tributary.controller.quorum-voters=" + voters));
  }

  @Override
  public void close() throws InterruptedException {
    for (BrokerProcess broker : brokers.values()) {
      broker.close();
    }
  }
}
