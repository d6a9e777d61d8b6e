package dev.tributary.config;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Broker settings under {@code tributary.*}, e.g. {@code --tributary.broker-id=2}. Each maps to the
 * Kafka broker config named in {@link dev.tributary.server.BrokerConfig}.
 *
 * @param advertisedHost the host peers and clients are told to call; unset: {@code server.address}
 *     when that is one address, else 127.0.0.1 ({@link ListenerAddresses})
 * @param brokerRack this broker's rack, Kafka's {@code broker.rack} (e.g. an availability zone);
 *     unset: none. When every broker has one, replicas of a partition go to distinct racks
 *     (docs/adr/0027-racks.md)
 * @param controller the metadata quorum: {@code
 *     tributary.controller.quorum-voters=1@127.0.0.1:9191,...} and optionally {@code
 *     tributary.controller.quorum-listeners=4@127.0.0.1:9194,...} (brokers that do not vote)
 */
@ConfigurationProperties("tributary")
public record TributaryProperties(
    @DefaultValue("1") int brokerId,
    @DefaultValue("./data/broker-1") Path dataDir,
    String advertisedHost,
    @DefaultValue("true") boolean autoCreateTopicsEnable,
    @DefaultValue("1") int numPartitions,
    @DefaultValue("1") int defaultReplicationFactor,
    @DefaultValue("30000") long requestTimeoutMs,
    @DefaultValue("5000") long logPeriodicTaskIntervalMs,
    String clusterId,
    String clusterSecret,
    @DefaultValue("500") long brokerHeartbeatIntervalMs,
    @DefaultValue("3000") long brokerSessionTimeoutMs,
    @DefaultValue("30000") long replicaLagTimeMaxMs,
    @DefaultValue("500") int replicaFetchWaitMaxMs,
    @DefaultValue("1048576") int replicaFetchMaxBytes,
    @DefaultValue("10485760") int replicaFetchResponseMaxBytes,
    @DefaultValue("100") long replicaFetchBackoffMs,
    @DefaultValue("true") boolean autoLeaderRebalanceEnable,
    @DefaultValue("300000") long leaderImbalanceCheckIntervalMs,
    @DefaultValue("1") int minInsyncReplicas,
    String brokerRack,
    @DefaultValue Controller controller,
    @DefaultValue Group group,
    @DefaultValue Kafka kafka) {

  /**
   * {@code tributary.controller.*}: the voters of the metadata quorum, and the brokers that only
   * follow it.
   */
  public record Controller(
      @DefaultValue("") String quorumVoters, @DefaultValue("") String quorumListeners) {}

  /**
   * {@code tributary.kafka.*}: the Kafka wire-protocol listener (Kafka's {@code listeners} and
   * {@code advertised.listeners} entry for it, {@code num.network.threads}, {@code num.io.threads},
   * {@code socket.request.max.bytes}, {@code connections.max.idle.ms}).
   *
   * <p>Its security has no setting of its own; it follows the broker's ({@link
   * KafkaSecurityWiring}): with {@code tributary.security.enabled} (the default) clients
   * authenticate with SASL/PLAIN, user name the API key id and password its secret, and the same
   * ACLs as REST decide; with {@code server.ssl.bundle} it is on TLS with the HTTP listener's
   * certificate. So it is SASL_PLAINTEXT by default, SASL_SSL with TLS, PLAINTEXT with security
   * off, SSL with security off and TLS on.
   *
   * @param host where it binds; unset: {@code server.address}
   * @param port where it listens; unset: 9091 + the broker id (broker 1 on Kafka's 9092); 0: any
   * @param advertisedHost what clients are told to connect to; unset: {@code
   *     tributary.advertised-host}
   * @param advertisedPort unset: the port it listens on
   */
  public record Kafka(
      @DefaultValue("true") boolean enabled,
      String host,
      Integer port,
      String advertisedHost,
      Integer advertisedPort,
      @DefaultValue("2") int networkThreads,
      @DefaultValue("4") int handlerThreads,
      @DefaultValue("104857600") int socketRequestMaxBytes,
      @DefaultValue("600000") long connectionsMaxIdleMs) {}

  /**
   * {@code tributary.group.*}: the group coordinator's settings, Kafka's {@code
   * offsets.topic.num.partitions}, {@code group.min.session.timeout.ms}, {@code
   * group.max.session.timeout.ms}, {@code group.initial.rebalance.delay.ms}, {@code
   * offsets.retention.minutes}.
   */
  public record Group(
      @DefaultValue("10") int offsetsTopicNumPartitions,
      @DefaultValue("6000") int minSessionTimeoutMs,
      @DefaultValue("1800000") int maxSessionTimeoutMs,
      @DefaultValue("3000") int initialRebalanceDelayMs,
      @DefaultValue("10080") long offsetsRetentionMinutes) {}
}
