package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.ManualClock;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.InvalidRegistrationException;
import dev.tributary.common.errors.NotControllerException;
import dev.tributary.common.errors.StaleBrokerEpochException;
import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.metadata.ConfigChange;
import dev.tributary.metadata.LocalMetadataLog;
import dev.tributary.metadata.MetadataQuorum;
import dev.tributary.metadata.NewPartitions;
import dev.tributary.metadata.NewTopic;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker's side of membership, against a scripted controller: each transition of the state
 * table.
 */
class BrokerLifecycleManagerTest {
  @TempDir Path dir;
  private MetadataQuorum quorum;
  private final ScriptedController controller = new ScriptedController();
  private BrokerLifecycleManager lifecycle;

  @BeforeEach
  void setUp() {
    quorum =
        LocalMetadataLog.open(
            dir, 1); // a quorum of one: broker 1 is always the controller it calls
    BrokerConfig config =
        new BrokerConfig(
            1, dir, "127.0.0.1", 8081, true, 1, 1, 30_000, 5_000, null, null, "", "", 500, 3_000);
    lifecycle =
        new BrokerLifecycleManager(
            config,
            "incarnation-1",
            quorum,
            controller,
            new ControllerLocator(() -> config, quorum),
            new ManualClock());
  }

  @AfterEach
  void tearDown() {
    quorum.close();
  }

  @Test
  void afterTheLogDirectoryWentOfflineEveryHeartbeatSaysSoAndTheBrokerIsFenced() {
    controller.heartbeats.add(new ControllerChannel.HeartbeatResult(false, -1));
    controller.heartbeats.add(new ControllerChannel.HeartbeatResult(true, -1));
    controller.heartbeats.add(new ControllerChannel.HeartbeatResult(true, -1));
    lifecycle.tick();
    assertThat(lifecycle.state()).isEqualTo(BrokerLifecycleManager.State.RUNNING);

    lifecycle.onLogDirOffline();
    lifecycle.tick();
    lifecycle.tick();

    assertThat(controller.calls)
        .containsExactly(
            "register",
            "heartbeat(epoch=7,offset=-1)",
            "heartbeat(epoch=7,offset=-1,logDirOffline)",
            "heartbeat(epoch=7,offset=-1,logDirOffline)");
    assertThat(lifecycle.state()).isEqualTo(BrokerLifecycleManager.State.REGISTERED);
    assertThat(lifecycle.logDirOffline()).isTrue();
  }

  @Test
  void registersThenHeartbeatsAndIsUnfencedWhenTheControllerSaysSo() {
    controller.heartbeats.add(new ControllerChannel.HeartbeatResult(true, -1));
    controller.heartbeats.add(new ControllerChannel.HeartbeatResult(false, -1));

    assertThat(lifecycle.tick()).isEqualTo(500);
    assertThat(controller.calls).containsExactly("register", "heartbeat(epoch=7,offset=-1)");
    assertThat(lifecycle.state()).isEqualTo(BrokerLifecycleManager.State.REGISTERED);
    assertThat(lifecycle.caughtUp())
        .isDone(); // the controller's offset at registration (-1) is already reached

    lifecycle.tick();
    assertThat(lifecycle.state()).isEqualTo(BrokerLifecycleManager.State.RUNNING);
    assertThat(lifecycle.brokerEpoch()).isEqualTo(7);
  }

  @Test
  void catchUpWaitsForTheControllersOffset() {
    controller.registrationOffset = 5;
    controller.heartbeats.add(new ControllerChannel.HeartbeatResult(true, 5));
    lifecycle.tick();
    assertThat(lifecycle.caughtUp()).isNotDone();
    lifecycle.onMetadataUpdate(4);
    assertThat(lifecycle.caughtUp()).isNotDone();
    lifecycle.onMetadataUpdate(5);
    assertThat(lifecycle.caughtUp()).isDone();
  }

  @Test
  void aFencedAnswerAfterRunningMeansFencedAgain() {
    controller.heartbeats.add(new ControllerChannel.HeartbeatResult(false, -1));
    controller.heartbeats.add(new ControllerChannel.HeartbeatResult(true, -1));
    lifecycle.tick();
    assertThat(lifecycle.state()).isEqualTo(BrokerLifecycleManager.State.RUNNING);
    lifecycle.tick();
    assertThat(lifecycle.state()).isEqualTo(BrokerLifecycleManager.State.REGISTERED);
  }

  @Test
  void aStaleEpochMakesTheBrokerRegisterAgainAtOnce() {
    controller.heartbeats.add(new ControllerChannel.HeartbeatResult(false, -1));
    lifecycle.tick();
    controller.failNextHeartbeat = new StaleBrokerEpochException("epoch 7 is stale");
    assertThat(lifecycle.tick()).isZero();
    assertThat(lifecycle.state()).isEqualTo(BrokerLifecycleManager.State.UNREGISTERED);
    controller.heartbeats.add(new ControllerChannel.HeartbeatResult(true, -1));
    lifecycle.tick();
    assertThat(controller.calls).filteredOn(c -> c.equals("register")).hasSize(2);
  }

  @Test
  void aNonControllerAnswerIsRetriedSoonWithoutLosingTheRegistration() {
    controller.heartbeats.add(new ControllerChannel.HeartbeatResult(false, -1));
    lifecycle.tick();
    controller.failNextHeartbeat = new NotControllerException("moved");
    assertThat(lifecycle.tick()).isLessThan(500);
    assertThat(lifecycle.state()).isEqualTo(BrokerLifecycleManager.State.RUNNING);
    assertThat(controller.calls).filteredOn(c -> c.equals("register")).hasSize(1);
  }

  @Test
  void theRegistrationAdvertisesTheConfiguredListeners() {
    controller.heartbeats.add(new ControllerChannel.HeartbeatResult(true, -1));
    lifecycle.tick();

    assertThat(controller.registrations)
        .containsExactly(
            new ControllerChannel.BrokerRegistration(
                1, "incarnation-1", List.of(AdvertisedListener.http("127.0.0.1", 8081))));
  }

  @Test
  void theRegistrationCarriesTheConfiguredRackAndABlankOneIsNone() {
    for (String rack : List.of("eu-west-1a", " ")) {
      BrokerConfig config = rackConfig(rack);
      BrokerLifecycleManager onRack =
          new BrokerLifecycleManager(
              config,
              "incarnation-2",
              quorum,
              controller,
              new ControllerLocator(() -> config, quorum),
              new ManualClock());
      controller.heartbeats.add(new ControllerChannel.HeartbeatResult(true, -1));
      onRack.tick();
    }

    assertThat(controller.registrations)
        .extracting(ControllerChannel.BrokerRegistration::rack)
        .containsExactly("eu-west-1a", null);
  }

  private BrokerConfig rackConfig(String rack) {
    return new BrokerConfig(
        1,
        dir,
        List.of(AdvertisedListener.http("127.0.0.1", 8081)),
        true,
        1,
        1,
        30_000,
        5_000,
        null,
        null,
        "",
        "",
        500,
        3_000,
        dev.tributary.replication.ReplicationConfig.DEFAULTS,
        true,
        300_000,
        1,
        rack);
  }

  @Test
  void aRefusedRegistrationIsAskedAgainAtTheHeartbeatPaceNotInALoop() {
    controller.failNextRegister = new InvalidRegistrationException("no HTTP listener");
    assertThat(lifecycle.tick()).isEqualTo(500);
    assertThat(lifecycle.state()).isEqualTo(BrokerLifecycleManager.State.UNREGISTERED);

    controller.heartbeats.add(new ControllerChannel.HeartbeatResult(true, -1));
    lifecycle.tick();
    assertThat(lifecycle.state()).isEqualTo(BrokerLifecycleManager.State.REGISTERED);
    assertThat(controller.registrations).hasSize(1);
  }

  /** A controller whose answers the test scripts; records the calls it gets. */
  private static final class ScriptedController implements ControllerChannel {
    final List<String> calls = new ArrayList<>();
    final Deque<HeartbeatResult> heartbeats = new ArrayDeque<>();
    long registrationOffset = -1;
    final List<BrokerRegistration> registrations = new ArrayList<>();
    RuntimeException failNextHeartbeat;
    RuntimeException failNextRegister;

    @Override
    public RegistrationResult register(Endpoint controller, BrokerRegistration registration) {
      if (failNextRegister != null) {
        RuntimeException e = failNextRegister;
        failNextRegister = null;
        throw e;
      }
      calls.add("register");
      registrations.add(registration);
      return new RegistrationResult(7, registrationOffset);
    }

    @Override
    public HeartbeatResult heartbeat(Endpoint controller, BrokerHeartbeat heartbeat) {
      if (failNextHeartbeat != null) {
        RuntimeException e = failNextHeartbeat;
        failNextHeartbeat = null;
        throw e;
      }
      calls.add(
          "heartbeat(epoch="
              + heartbeat.brokerEpoch()
              + ",offset="
              + heartbeat.metadataOffset()
              + (heartbeat.logDirOffline() ? ",logDirOffline" : "")
              + ")");
      return heartbeats.removeFirst();
    }

    @Override
    public AdminResult createTopic(Endpoint c, NewTopic topic, boolean validateOnly) {
      throw new UnsupportedOperationException();
    }

    @Override
    public AdminResult createPartitions(Endpoint c, NewPartitions request, boolean validateOnly) {
      throw new UnsupportedOperationException();
    }

    @Override
    public AdminResult deleteTopic(Endpoint c, String n) {
      throw new UnsupportedOperationException();
    }

    @Override
    public AdminResult alterBrokerConfigs(
        Endpoint c, int b, List<ConfigChange> changes, boolean validateOnly) {
      throw new UnsupportedOperationException();
    }

    @Override
    public AdminResult unregisterBroker(Endpoint c, int b) {
      throw new UnsupportedOperationException();
    }

    @Override
    public AdminResult alterConfigs(
        Endpoint c, String n, List<ConfigChange> changes, boolean validateOnly) {
      throw new UnsupportedOperationException();
    }

    @Override
    public ElectionResult electPreferredLeaders(Endpoint c, List<TopicPartition> partitions) {
      throw new UnsupportedOperationException();
    }

    @Override
    public ReassignmentResult alterPartitionReassignments(
        Endpoint c, java.util.Map<TopicPartition, java.util.Optional<List<Integer>>> targets) {
      throw new UnsupportedOperationException();
    }

    @Override
    public AdminResult alterSecurity(Endpoint c, dev.tributary.security.SecurityChange change) {
      throw new UnsupportedOperationException();
    }

    @Override
    public AdminResult alterPartition(Endpoint c, AlterPartition request) {
      throw new UnsupportedOperationException();
    }

    @Override
    public AdminResult fenceBroker(Endpoint c, int brokerId, long brokerEpoch) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void reportUnreachable(Endpoint c, int reporterId, int brokerId) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void reportTruncation(Endpoint c, dev.tributary.replication.Truncation truncation) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void reportFault(Endpoint c, FaultReport fault) {
      throw new UnsupportedOperationException();
    }

    @Override
    public dev.tributary.metadata.ProducerIdsBlock allocateProducerIds(
        Endpoint c, int brokerId, long brokerEpoch) {
      throw new UnsupportedOperationException();
    }
  }
}
