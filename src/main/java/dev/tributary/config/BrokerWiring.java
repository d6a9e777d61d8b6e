package dev.tributary.config;

import dev.tributary.common.Time;
import dev.tributary.group.GroupCoordinatorConfig;
import dev.tributary.kafka.KafkaListener;
import dev.tributary.kafka.security.ListenerSecurity;
import dev.tributary.log.SlowDisk;
import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.metadata.AdvertisedListener.SecurityProtocol;
import dev.tributary.quota.ClientQuotaManager;
import dev.tributary.replication.LeaderEndpoint;
import dev.tributary.replication.ReplicationConfig;
import dev.tributary.server.AccessControl;
import dev.tributary.server.AdminService;
import dev.tributary.server.AutoTopicCreator;
import dev.tributary.server.BalanceService;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.BrokerLoadService;
import dev.tributary.server.BrokerServer;
import dev.tributary.server.BrokerStats;
import dev.tributary.server.ControllerChannel;
import dev.tributary.server.FaultReports;
import dev.tributary.server.FetchService;
import dev.tributary.server.GroupServices;
import dev.tributary.server.GroupTransport;
import dev.tributary.server.LogDirsService;
import dev.tributary.server.MetadataWaiters;
import dev.tributary.server.OffsetsService;
import dev.tributary.server.PartitionForwarder;
import dev.tributary.server.PeerLoads;
import dev.tributary.server.ProduceService;
import dev.tributary.server.ProducerIdService;
import dev.tributary.server.RecordProducer;
import dev.tributary.server.RecordTraceService;
import dev.tributary.server.ReplicaStatusService;
import dev.tributary.transport.http.HttpControllerChannel;
import dev.tributary.transport.http.HttpGroupTransport;
import dev.tributary.transport.http.HttpLeaderEndpoint;
import dev.tributary.transport.http.HttpPartitionForwarder;
import dev.tributary.transport.http.HttpPeerLoads;
import dev.tributary.transport.http.PeerUrls;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpClient;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/**
 * Builds the plain-Java core with {@code new} and hands it to the web layer. Every part reads the
 * broker's one clock ({@link ClockWiring}); the balance service keeps the system clock for now (it
 * only times its own moves).
 */
@Configuration(proxyBeanMethods = false)
class BrokerWiring {

  @Bean(destroyMethod = "close")
  ExecutorScheduler tributaryScheduler() {
    return new ExecutorScheduler("tributary-scheduler");
  }

  /** Runs the work that follows a delayed completion (long-poll re-reads, acks=all responses). */
  @Bean(destroyMethod = "shutdownNow")
  ExecutorService tributaryDelayedCompletions() {
    AtomicInteger count = new AtomicInteger();
    return Executors.newFixedThreadPool(
        2,
        runnable -> {
          Thread thread = new Thread(runnable, "tributary-delayed-" + count.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        });
  }

  @Bean
  ListenerAddresses listenerAddresses(
      TributaryProperties properties, @Value("${server.address:}") String serverAddress) {
    return ListenerAddresses.resolve(properties, serverAddress);
  }

  @Bean
  BrokerConfig brokerConfig(
      TributaryProperties properties,
      ListenerAddresses addresses,
      @Value("${server.port:8081}") int port,
      @Value("${server.ssl.bundle:}") String serverBundle,
      @Value("${server.ssl.enabled:true}") boolean serverSslEnabled,
      @Value("${tributary.security.enabled:true}") boolean securityEnabled,
      KafkaPort kafkaPort) {
    boolean tls = ClusterTls.listenerOnTls(serverBundle, serverSslEnabled);
    return new BrokerConfig(
        properties.brokerId(),
        properties.dataDir().toAbsolutePath().normalize(),
        advertisedListeners(
            properties,
            addresses,
            port,
            tls,
            kafkaPort.port(),
            ListenerSecurity.protocolFor(securityEnabled, tls)),
        properties.autoCreateTopicsEnable(),
        properties.numPartitions(),
        properties.defaultReplicationFactor(),
        properties.requestTimeoutMs(),
        properties.logPeriodicTaskIntervalMs(),
        properties.clusterId(),
        properties.clusterSecret(),
        properties.controller().quorumVoters(),
        properties.controller().quorumListeners(),
        properties.brokerHeartbeatIntervalMs(),
        properties.brokerSessionTimeoutMs(),
        new ReplicationConfig(
            properties.replicaLagTimeMaxMs(),
            properties.replicaFetchWaitMaxMs(),
            properties.replicaFetchResponseMaxBytes(),
            properties.replicaFetchMaxBytes(),
            properties.replicaFetchBackoffMs()),
        properties.autoLeaderRebalanceEnable(),
        properties.leaderImbalanceCheckIntervalMs(),
        properties.minInsyncReplicas(),
        properties.brokerRack());
  }

  /**
   * The listeners this broker registers (Kafka's {@code advertised.listeners}), one entry per
   * listener it serves: the HTTP one, on {@code server.port} at the advertised host, SSL when
   * {@code server.ssl.bundle} puts it on TLS; and the Kafka one ({@code tributary.kafka.*}) when
   * {@code kafkaPort} is one (>= 0), speaking {@code kafkaProtocol}.
   */
  static List<AdvertisedListener> advertisedListeners(
      TributaryProperties properties,
      ListenerAddresses addresses,
      int httpPort,
      boolean httpOnTls,
      int kafkaPort,
      SecurityProtocol kafkaProtocol) {
    AdvertisedListener http =
        new AdvertisedListener(
            AdvertisedListener.HTTP,
            addresses.advertisedHost(),
            httpPort,
            httpOnTls ? SecurityProtocol.SSL : SecurityProtocol.PLAINTEXT);
    if (kafkaPort < 0) {
      return List.of(http);
    }
    TributaryProperties.Kafka kafka = properties.kafka();
    return List.of(
        http,
        new AdvertisedListener(
            KafkaListener.NAME,
            kafka.advertisedHost() != null ? kafka.advertisedHost() : addresses.advertisedHost(),
            kafka.advertisedPort() != null ? kafka.advertisedPort() : kafkaPort,
            kafkaProtocol));
  }

  /** Closed by {@link BrokerLifecycle} during graceful shutdown, not by the bean factory. */
  @Bean(destroyMethod = "")
  BrokerServer brokerServer(
      BrokerConfig config,
      ExecutorScheduler scheduler,
      ExecutorService tributaryDelayedCompletions,
      HttpClient tributaryHttpClient,
      ClusterTls clusterTls,
      JsonMapper json,
      Time brokerTime,
      SlowDisk brokerDisk) {
    ControllerChannel remote =
        new HttpControllerChannel(
            tributaryHttpClient,
            clusterTls.urls(),
            json,
            config.clusterSecret() == null ? "" : config.clusterSecret(),
            Duration.ofSeconds(5),
            Duration.ofMillis(Math.max(500, config.brokerSessionTimeoutMs() / 2)));
    BrokerServer[] self =
        new BrokerServer[1]; // the leader endpoint looks brokers up in the server's metadata
    LeaderEndpoint leaders =
        new HttpLeaderEndpoint(
            clusterTls.urls(),
            clusterTls.peerSslContext(),
            config.clusterSecret() == null ? "" : config.clusterSecret(),
            id -> self[0].brokerEndpoint(id));
    self[0] =
        new BrokerServer(
            config,
            brokerTime,
            new SecureRandom(),
            scheduler,
            tributaryDelayedCompletions,
            brokerConfig -> MetadataQuorums.open(brokerConfig, clusterTls.raftTls()),
            remote,
            leaders,
            brokerDisk);
    return self[0];
  }

  /**
   * One HTTP client for every call to another broker (forwarded produces and reads, controller
   * calls); with TLS it trusts the cluster's CA ({@link ClusterTls}).
   */
  @Bean
  HttpClient tributaryHttpClient(ClusterTls clusterTls) {
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2));
    clusterTls.peerSslContext().ifPresent(builder::sslContext);
    return builder.build();
  }

  @Bean
  PartitionForwarder partitionForwarder(
      HttpClient tributaryHttpClient, PeerUrls peerUrls, BrokerServer broker, BrokerConfig config) {
    return new HttpPartitionForwarder(
        tributaryHttpClient,
        peerUrls,
        broker::brokerEndpoint,
        Duration.ofSeconds(5),
        () -> broker.metadata().lastOffset(),
        config.clusterSecret());
  }

  /** The other brokers' load, for the balancer; the balancer stops waiting sooner than this. */
  @Bean
  PeerLoads peerLoads(
      HttpClient tributaryHttpClient,
      PeerUrls peerUrls,
      BrokerServer broker,
      BrokerConfig config,
      JsonMapper json) {
    return new HttpPeerLoads(
        tributaryHttpClient,
        peerUrls,
        broker::brokerEndpoint,
        json,
        Duration.ofSeconds(5),
        config.clusterSecret());
  }

  // -------------------------------------------------------------------------------------------
  // the broker's services: what every protocol adapter calls

  /** Futures waiting for this broker to apply some metadata (the broker owns them). */
  @Bean
  MetadataWaiters metadataWaiters(BrokerServer broker) {
    return broker.metadataWaiters();
  }

  @Bean
  BrokerStats brokerStats(MeterRegistry registry, ClientQuotaManager quotas) {
    return new MicrometerBrokerStats(registry, quotas);
  }

  @Bean
  ProduceService produceService(
      BrokerServer broker,
      AccessControl access,
      ClientQuotaManager quotas,
      PartitionForwarder partitionForwarder,
      BrokerStats stats) {
    return new ProduceService(broker, access, quotas, partitionForwarder, stats);
  }

  /** A trace waits this long for its record's steps (the page's request waits a little longer). */
  static final long TRACE_WAIT_MS = 3_000;

  @Bean
  RecordTraceService recordTraceService(
      BrokerServer broker,
      ProduceService produceService,
      ExecutorScheduler scheduler,
      BrokerConfig config,
      Time brokerTime) {
    return new RecordTraceService(
        broker, produceService, brokerTime, scheduler, TRACE_WAIT_MS, config.requestTimeoutMs());
  }

  @Bean
  FetchService fetchService(BrokerServer broker, AccessControl access, BrokerStats stats) {
    return new FetchService(broker, access, stats);
  }

  @Bean
  OffsetsService offsetsService(BrokerServer broker, AccessControl access) {
    return new OffsetsService(broker, access);
  }

  @Bean
  AdminService adminService(
      BrokerServer broker,
      BrokerConfig config,
      AccessControl access,
      MetadataWaiters metadataWaiters) {
    return new AdminService(broker, config, access, metadataWaiters);
  }

  @Bean
  BalanceService balanceService(
      BrokerServer broker,
      AdminService adminService,
      AccessControl access,
      ExecutorScheduler scheduler,
      BrokerLoadService brokerLoadService,
      PeerLoads peerLoads) {
    return new BalanceService(
        broker,
        adminService,
        access,
        scheduler,
        Time.SYSTEM,
        brokerLoadService,
        peerLoads,
        BalanceService.DEFAULT_LOAD_TIMEOUT_MS);
  }

  /** This broker's load (log sizes, bytes-in), for its balancer and its peers'. */
  @Bean
  BrokerLoadService brokerLoadService(
      BrokerServer broker, LogDirsService logDirsService, Time brokerTime) {
    return new BrokerLoadService(broker, logDirsService, brokerTime);
  }

  @Bean
  AutoTopicCreator autoTopicCreator(
      BrokerServer broker,
      BrokerConfig config,
      AdminService adminService,
      MetadataWaiters metadataWaiters) {
    return new AutoTopicCreator(broker, config, adminService, metadataWaiters);
  }

  @Bean
  ProducerIdService producerIdService(BrokerServer broker, AccessControl access) {
    return new ProducerIdService(broker, access);
  }

  @Bean
  RecordProducer recordProducer(
      BrokerServer broker,
      ProduceService produceService,
      AutoTopicCreator autoTopicCreator,
      BrokerConfig config,
      Time brokerTime) {
    return new RecordProducer(
        broker, produceService, autoTopicCreator, brokerTime, config.requestTimeoutMs());
  }

  @Bean
  LogDirsService logDirsService(BrokerServer broker, BrokerConfig config, AccessControl access) {
    return new LogDirsService(
        broker, config.logDir(), () -> broker.offlineLogDir().isPresent(), access);
  }

  /** The dashboard's injected faults, on the timeline. */
  @Bean
  FaultReports faultReports(BrokerServer broker, BrokerConfig config) {
    return new FaultReports(broker, config.brokerId());
  }

  @Bean
  ReplicaStatusService replicaStatusService(BrokerServer broker, Time brokerTime) {
    return new ReplicaStatusService(broker, brokerTime);
  }

  /** Closed by {@link BrokerLifecycle} around the broker's own shutdown. */
  @Bean(destroyMethod = "")
  GroupServices groupServices(
      BrokerServer broker,
      AdminService adminService,
      FetchService fetchService,
      OffsetsService offsetsService,
      TributaryProperties properties,
      ExecutorScheduler scheduler,
      ExecutorService tributaryDelayedCompletions,
      HttpClient tributaryHttpClient,
      PeerUrls peerUrls,
      JsonMapper json,
      BrokerConfig config,
      Time brokerTime) {
    TributaryProperties.Group group = properties.group();
    GroupCoordinatorConfig coordinatorConfig =
        new GroupCoordinatorConfig(
            group.offsetsTopicNumPartitions(),
            group.minSessionTimeoutMs(),
            group.maxSessionTimeoutMs(),
            group.initialRebalanceDelayMs(),
            GroupCoordinatorConfig.defaults().offsetMetadataMaxBytes(),
            group.offsetsRetentionMinutes() * 60_000,
            GroupCoordinatorConfig.defaults().offsetsRetentionCheckIntervalMs());
    GroupTransport transport =
        new HttpGroupTransport(
            tributaryHttpClient,
            peerUrls,
            json,
            config.clusterSecret() == null ? "" : config.clusterSecret(),
            Duration.ofSeconds(5));
    return new GroupServices(
        broker,
        adminService,
        fetchService,
        offsetsService,
        coordinatorConfig,
        transport,
        brokerTime,
        scheduler,
        new SecureRandom(),
        tributaryDelayedCompletions);
  }
}
