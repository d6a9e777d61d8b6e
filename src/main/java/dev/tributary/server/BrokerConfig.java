package dev.tributary.server;

import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.replication.ReplicationConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A broker's own settings (not per-topic ones, which are {@link dev.tributary.log.LogConfig}).
 * Kafka's names, in camelCase with units last: {@code autoCreateTopicsEnable} is {@code
 * auto.create.topics.enable}.
 *
 * @param brokerId this broker's id ({@code node.id})
 * @param dataDir where logs, metadata and checkpoints live ({@code log.dirs}, one directory)
 * @param listeners the listeners this broker advertises in its registration ({@code
 *     advertised.listeners}), sorted by name; one is {@code HTTP}, whose port may be 0 until it has
 *     bound ({@link #withPort})
 * @param autoCreateTopicsEnable producing to a missing topic creates it ({@code
 *     auto.create.topics.enable})
 * @param numPartitions partitions of an auto-created topic ({@code num.partitions})
 * @param defaultReplicationFactor replicas of an auto-created topic ({@code
 *     default.replication.factor})
 * @param requestTimeoutMs how long an {@code acks=all} produce waits for replication ({@code
 *     request.timeout.ms})
 * @param logPeriodicTaskIntervalMs how often retention, time-based flushes and checkpoints run
 * @param clusterId the cluster's id, shared by every broker ({@code cluster.id} in Kafka's
 *     meta.properties); null in single-broker mode, where a new directory gets a random one
 * @param clusterSecret the secret brokers present to each other's internal endpoints
 * @param quorumVoters the metadata quorum, {@code id@host:port,...} ({@code
 *     controller.quorum.voters}); empty for a single broker that is its own controller
 * @param quorumListeners brokers that follow the metadata log without voting, in the same format;
 *     empty when every broker votes
 * @param brokerHeartbeatIntervalMs how often a broker heartbeats the controller ({@code
 *     broker.heartbeat.interval.ms}; Kafka's default is 2000)
 * @param brokerSessionTimeoutMs how long the controller waits without a heartbeat before fencing a
 *     broker ({@code broker.session.timeout.ms}; Kafka's default is 9000)
 * @param replication replica fetch and ISR settings ({@code replica.lag.time.max.ms}, ...)
 * @param autoLeaderRebalanceEnable the controller gives leadership back to preferred replicas
 *     ({@code auto.leader.rebalance.enable}; Kafka's default true)
 * @param leaderImbalanceCheckIntervalMs how often it checks ({@code
 *     leader.imbalance.check.interval.seconds}, in ms; Kafka's default 300 s)
 * @param minInsyncReplicas {@code min.insync.replicas} for topics created without one (Kafka's
 *     broker default, 1); never more than the topic's replication factor
 * @param rack the rack this broker is in ({@code broker.rack}), carried in its registration so that
 *     replicas of a partition land on distinct racks; null (or blank) for none
 */
public record BrokerConfig(
    int brokerId,
    Path dataDir,
    List<AdvertisedListener> listeners,
    boolean autoCreateTopicsEnable,
    int numPartitions,
    int defaultReplicationFactor,
    long requestTimeoutMs,
    long logPeriodicTaskIntervalMs,
    String clusterId,
    String clusterSecret,
    String quorumVoters,
    String quorumListeners,
    long brokerHeartbeatIntervalMs,
    long brokerSessionTimeoutMs,
    ReplicationConfig replication,
    boolean autoLeaderRebalanceEnable,
    long leaderImbalanceCheckIntervalMs,
    int minInsyncReplicas,
    String rack) {

  /**
   * One plaintext HTTP listener at {@code host:port}, with Kafka's replication defaults, no rack.
   */
  public BrokerConfig(
      int brokerId,
      Path dataDir,
      String host,
      int port,
      boolean autoCreateTopicsEnable,
      int numPartitions,
      int defaultReplicationFactor,
      long requestTimeoutMs,
      long logPeriodicTaskIntervalMs,
      String clusterId,
      String clusterSecret,
      String quorumVoters,
      String quorumListeners,
      long brokerHeartbeatIntervalMs,
      long brokerSessionTimeoutMs) {
    this(
        brokerId,
        dataDir,
        List.of(AdvertisedListener.http(host, port)),
        autoCreateTopicsEnable,
        numPartitions,
        defaultReplicationFactor,
        requestTimeoutMs,
        logPeriodicTaskIntervalMs,
        clusterId,
        clusterSecret,
        quorumVoters,
        quorumListeners,
        brokerHeartbeatIntervalMs,
        brokerSessionTimeoutMs,
        ReplicationConfig.DEFAULTS,
        true,
        300_000,
        1,
        null);
  }

  public BrokerConfig {
    if (replication == null || leaderImbalanceCheckIntervalMs <= 0 || minInsyncReplicas < 1) {
      throw new IllegalArgumentException(
          "replication settings and a positive leader imbalance interval are needed");
    }
    if (brokerId < 0) {
      throw new IllegalArgumentException("broker id must be >= 0, got " + brokerId);
    }
    listeners = AdvertisedListener.ofRegistration(listeners);
    if (numPartitions < 1 || defaultReplicationFactor < 1) {
      throw new IllegalArgumentException(
          "num.partitions and default.replication.factor must be >= 1");
    }
    quorumVoters = quorumVoters == null ? "" : quorumVoters.trim();
    // An empty --tributary.broker-rack= means none, as an unset broker.rack does.
    rack = rack == null || rack.isBlank() ? null : rack.trim();
    quorumListeners = quorumListeners == null ? "" : quorumListeners.trim();
    if (!quorumVoters.isEmpty() && (clusterSecret == null || clusterSecret.isBlank())) {
      throw new IllegalArgumentException(
          "a cluster (quorum voters set) needs tributary.cluster-secret, the secret brokers share");
    }
    if (brokerHeartbeatIntervalMs <= 0 || brokerSessionTimeoutMs <= brokerHeartbeatIntervalMs) {
      throw new IllegalArgumentException(
          "the broker session timeout must be longer than the heartbeat interval");
    }
  }

  /** True when this broker is one of a cluster with a Raft metadata quorum. */
  public boolean clustered() {
    return !quorumVoters.isEmpty();
  }

  /** The advertised listener of the REST and internal API. */
  public AdvertisedListener httpListener() {
    return AdvertisedListener.named(listeners, AdvertisedListener.HTTP).orElseThrow();
  }

  /** The host the HTTP listener is reached on. */
  public String host() {
    return httpListener().host();
  }

  /** The HTTP listener's port (0 until it has bound, if configured so). */
  public int port() {
    return httpListener().port();
  }

  /** The same settings with the port the HTTP listener actually bound. */
  public BrokerConfig withPort(int boundPort) {
    List<AdvertisedListener> bound = new ArrayList<>();
    for (AdvertisedListener listener : listeners) {
      bound.add(
          listener.name().equals(AdvertisedListener.HTTP)
              ? new AdvertisedListener(
                  listener.name(), listener.host(), boundPort, listener.securityProtocol())
              : listener);
    }
    return new BrokerConfig(
        brokerId,
        dataDir,
        bound,
        autoCreateTopicsEnable,
        numPartitions,
        defaultReplicationFactor,
        requestTimeoutMs,
        logPeriodicTaskIntervalMs,
        clusterId,
        clusterSecret,
        quorumVoters,
        quorumListeners,
        brokerHeartbeatIntervalMs,
        brokerSessionTimeoutMs,
        replication,
        autoLeaderRebalanceEnable,
        leaderImbalanceCheckIntervalMs,
        minInsyncReplicas,
        rack);
  }

  public Path logDir() {
    return dataDir.resolve("logs");
  }

  /** Where the metadata quorum keeps its Raft log and snapshots. */
  public Path quorumDir() {
    return dataDir.resolve("quorum");
  }

  public Path metadataDir() {
    return dataDir.resolve("metadata");
  }
}
