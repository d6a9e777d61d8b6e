package dev.tributary.server;

import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataQuorum;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.replication.ReplicaHarness;
import dev.tributary.replication.ReplicaManager;
import dev.tributary.replication.ReplicationConfig;
import dev.tributary.security.AclBinding;
import dev.tributary.security.AclOperation;
import dev.tributary.security.Authorizer;
import dev.tributary.security.PatternType;
import dev.tributary.security.ResourceType;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A {@link RunningBroker} for the services' tests: broker 1 over a {@link ReplicaHarness} (a real
 * replica manager on a manual clock), whose controller is broker 2, reached through a real {@link
 * ControllerClient} over a {@link FakeController} that commits as the controller would. The
 * services' {@link MetadataWaiters} are told of every image this broker applies. Admin calls run on
 * the caller's thread.
 */
final class LocalReplicas implements RunningBroker, AutoCloseable {
  static final int CONTROLLER_ID = 2;

  final ReplicaHarness harness;
  final FakeController controller;
  final MetadataWaiters waiters;
  private final BrokerConfig config;
  private final ControllerClient client;

  LocalReplicas(Path dir) {
    this(dir, config(dir, true, 2, 1, 1, ""));
  }

  LocalReplicas(Path dir, BrokerConfig config) {
    this.config = config;
    this.harness = new ReplicaHarness(dir.resolve("logs"));
    this.controller = new FakeController(harness);
    this.waiters = new MetadataWaiters(harness.clock, config.brokerId());
    waiters.onApplied(harness.image());
    harness.onApplied(waiters::onApplied);
    MetadataQuorum quorum = new ControllerElsewhere(harness);
    this.client =
        new ControllerClient(
            quorum,
            null,
            controller,
            new ControllerLocator(() -> config, quorum),
            Runnable::run,
            harness.clock,
            harness.clock,
            0);
  }

  /**
   * Broker 1's configuration.
   *
   * @param quorumVoters {@code controller.quorum.voters}: empty for a lone broker
   */
  static BrokerConfig config(
      Path dir,
      boolean autoCreateTopicsEnable,
      int numPartitions,
      int defaultReplicationFactor,
      int minInsyncReplicas,
      String quorumVoters) {
    return new BrokerConfig(
        ReplicaHarness.LOCAL,
        dir,
        List.of(dev.tributary.metadata.AdvertisedListener.http("localhost", 9001)),
        autoCreateTopicsEnable,
        numPartitions,
        defaultReplicationFactor,
        30_000,
        5_000,
        "test-cluster",
        quorumVoters.isEmpty() ? "" : "secret",
        quorumVoters,
        "",
        500,
        3_000,
        ReplicationConfig.DEFAULTS,
        true,
        300_000,
        minInsyncReplicas,
        null);
  }

  /**
   * Access control with security on, over a real {@link Authorizer} reading this broker's image;
   * each refusal counts in {@code denials}.
   */
  AccessControl accessControl(AtomicInteger denials) {
    Authorizer authorizer = new Authorizer(() -> metadata().security(), Map.of(), Set.of());
    return new AccessControl(authorizer, true, denials::incrementAndGet);
  }

  /** Commits and applies an ACL letting {@code principal} do {@code operation} on {@code name}. */
  /** A balance service on this broker, over an {@link AdminService} with {@code access}. */
  BalanceService balanceService(AccessControl access) {
    AdminService admin = new AdminService(this, config(), access, waiters);
    return new BalanceService(this, admin, access, harness.clock, harness.clock);
  }

  /**
   * Commits (and applies here) what the controller would for the leader of {@code tp} adding every
   * replica being added to the ISR: the reassignment completes in the same record.
   */
  void completeReassignment(dev.tributary.common.TopicPartition tp) {
    MetadataImage image = harness.controllerImage();
    dev.tributary.metadata.TopicImage topic = image.topic(tp.topic()).orElseThrow();
    dev.tributary.metadata.PartitionImage p = topic.requirePartition(tp.partition());
    List<Integer> isr = new java.util.ArrayList<>(p.isr());
    p.addingReplicas().stream().filter(id -> !isr.contains(id)).forEach(isr::add);
    harness.apply(
        dev.tributary.metadata.IsrControl.alterPartition(
            image,
            topic.topicId(),
            tp.partition(),
            p.leader(),
            p.leaderEpoch(),
            p.partitionEpoch(),
            isr,
            Map.of()));
  }

  void grant(String principal, AclOperation operation, ResourceType type, String name) {
    harness.apply(
        List.of(
            new MetadataRecord.AclCreated(
                new AclBinding(principal, operation, type, PatternType.LITERAL, name))));
  }

  @Override
  public ReplicaManager replicaManager() {
    return harness.replicaManager();
  }

  /**
   * What this broker has applied: here its quorum's image and its replica manager's are the same
   * one ({@link ReplicaHarness#catchUp} applies both).
   */
  @Override
  public ProducerIdManager producerIdManager() {
    throw new UnsupportedOperationException("producer ids are not a replica test's call");
  }

  @Override
  public MetadataImage metadata() {
    return harness.image();
  }

  @Override
  public ControllerClient controller() {
    return client;
  }

  @Override
  public int brokerId() {
    return config.brokerId();
  }

  @Override
  public BrokerConfig config() {
    return config;
  }

  @Override
  public String clusterId() {
    return config.clusterId();
  }

  @Override
  public int activeControllerId() {
    return CONTROLLER_ID;
  }

  @Override
  public long controllerEpoch() {
    return 1;
  }

  @Override
  public Optional<ControllerChannel.Endpoint> brokerEndpoint(int brokerId) {
    return metadata()
        .broker(brokerId)
        .map(b -> new ControllerChannel.Endpoint(b.brokerId(), b.host(), b.port()));
  }

  @Override
  public boolean isReady() {
    return true;
  }

  @Override
  public void close() {
    harness.close();
  }

  /** A quorum whose leader is broker 2; its image is everything committed. */
  private record ControllerElsewhere(ReplicaHarness harness) implements MetadataQuorum {
    @Override
    public MetadataImage append(long expectedLastOffset, List<MetadataRecord> records) {
      throw new UnsupportedOperationException("only the controller appends");
    }

    @Override
    public MetadataImage image() {
      return harness.controllerImage();
    }

    @Override
    public void subscribe(Consumer<MetadataImage> listener) {
      throw new UnsupportedOperationException("the harness tells the broker of images");
    }

    @Override
    public OptionalInt activeControllerId() {
      Optional<BrokerImage> controller = harness.controllerImage().broker(CONTROLLER_ID);
      return controller.isPresent() ? OptionalInt.of(CONTROLLER_ID) : OptionalInt.empty();
    }

    @Override
    public boolean isActiveController() {
      return false;
    }

    @Override
    public long controllerEpoch() {
      return 1;
    }

    @Override
    public void close() {}
  }
}
