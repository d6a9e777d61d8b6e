package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.ManualClock;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.NotControllerException;
import dev.tributary.common.errors.TopicExistsException;
import dev.tributary.metadata.Controller;
import dev.tributary.metadata.LocalMetadataLog;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataQuorum;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.metadata.NewTopic;
import dev.tributary.metadata.TopicControl;
import dev.tributary.security.AclBinding;
import dev.tributary.security.AclOperation;
import dev.tributary.security.PatternType;
import dev.tributary.security.ResourceType;
import dev.tributary.security.SecurityChange;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ControllerClient} on broker 1: straight to the local {@link ControllerService} while this
 * broker is the active controller, over the channel to the active controller's registered address
 * otherwise, NOT_CONTROLLER while none is known; admin calls run on the given executor.
 */
class ControllerClientTest {
  private static final AclBinding ACL =
      new AclBinding("User:bob", AclOperation.READ, ResourceType.TOPIC, PatternType.LITERAL, "t");

  private static final long RETRY_FOR_MS = 5_000;

  @TempDir Path dir;
  private final ManualClock clock = new ManualClock();
  private final Queue<Runnable> adminThread = new ArrayDeque<>();
  private final List<String> remoteCalls = new ArrayList<>();
  private RuntimeException remoteFailure;
  private LocalMetadataLog log;
  private OptionalInt leader = OptionalInt.of(1);
  private ControllerClient client;

  @BeforeEach
  void setUp() {
    log = LocalMetadataLog.open(dir, 1);
    MetadataQuorum quorum = new LeaderSaysSo();
    Controller controller = new Controller(quorum, new TopicControl(new Random(1)), 9_000, clock);
    ControllerService local = new ControllerService(controller, quorum, clock, (h, p) -> false);
    BrokerConfig config = LocalReplicas.config(dir, true, 1, 1, 1, "");
    client =
        new ControllerClient(
            quorum,
            local,
            remote(),
            new ControllerLocator(() -> config, quorum),
            adminThread::add,
            clock,
            clock,
            RETRY_FOR_MS);
  }

  @AfterEach
  void tearDown() {
    log.close();
  }

  /** The local log, with the leader the test names. */
  private final class LeaderSaysSo implements MetadataQuorum {
    @Override
    public MetadataImage append(long expectedLastOffset, List<MetadataRecord> records) {
      return log.append(expectedLastOffset, records);
    }

    @Override
    public MetadataImage image() {
      return log.image();
    }

    @Override
    public void subscribe(Consumer<MetadataImage> listener) {
      log.subscribe(listener);
    }

    @Override
    public OptionalInt activeControllerId() {
      return leader;
    }

    @Override
    public boolean isActiveController() {
      return leader.equals(OptionalInt.of(1));
    }

    @Override
    public long controllerEpoch() {
      return 1;
    }

    @Override
    public void close() {}
  }

  /** The channel to another broker: records each call with its arguments, answers offset 42. */
  private ControllerChannel remote() {
    return (ControllerChannel)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {ControllerChannel.class},
            (proxy, method, args) -> {
              remoteCalls.add(method.getName() + Arrays.asList(args));
              if (remoteFailure != null) {
                throw remoteFailure;
              }
              return new ControllerChannel.AdminResult(42);
            });
  }

  private void runAdminThread() {
    while (!adminThread.isEmpty()) {
      adminThread.poll().run();
    }
  }

  private void registerBroker2() {
    log.append(
        log.image().lastOffset(),
        List.of(new MetadataRecord.RegisterBroker(2, new Uuid(2, 2), "10.0.0.2", 9092)));
  }

  @Test
  void whileThisBrokerIsTheControllerTheCallGoesStraightToIt() {
    CompletableFuture<ControllerChannel.AdminResult> done =
        client.alterSecurity(SecurityChange.createAcls(List.of(ACL)));
    assertThat(done).as("admin calls run on the executor").isNotDone();

    runAdminThread();

    assertThat(done.join().metadataOffset()).isEqualTo(log.image().lastOffset());
    assertThat(log.image().security().acls()).contains(ACL);
    assertThat(remoteCalls).isEmpty();
  }

  @Test
  void anotherControllerIsCalledAtItsRegisteredAddress() {
    registerBroker2();
    leader = OptionalInt.of(2);

    CompletableFuture<ControllerChannel.AdminResult> done =
        client.createTopic(NewTopic.placed("orders", 3, 2, Map.of("retention.ms", "1")), false);
    assertThat(remoteCalls).isEmpty();
    runAdminThread();

    assertThat(done.join().metadataOffset()).isEqualTo(42);
    assertThat(remoteCalls)
        .containsExactly(
            "createTopic[Endpoint[brokerId=2, host=10.0.0.2, port=9092], NewTopic[name=orders,"
                + " partitions=3, replicationFactor=2, assignments=[], configs={retention.ms=1}],"
                + " false]");
    assertThat(log.image().topic("orders")).as("nothing committed here").isEmpty();
  }

  @Test
  void theRemoteControllersRefusalFailsTheFuture() {
    registerBroker2();
    leader = OptionalInt.of(2);
    remoteFailure = new TopicExistsException("Topic 'orders' already exists.");

    CompletableFuture<ControllerChannel.AdminResult> done =
        client.createTopic(NewTopic.placed("orders", 1, 1, Map.of()), false);
    runAdminThread();

    assertThatThrownBy(done::join)
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(TopicExistsException.class);
  }

  @Test
  void withNoControllerKnownAnAdminCallWaitsThenFailsNotController() {
    leader = OptionalInt.empty();

    CompletableFuture<ControllerChannel.AdminResult> done = client.deleteTopic("orders");
    runAdminThread();
    assertThat(done).as("waiting for a controller").isNotDone();
    for (long waited = 0; waited <= RETRY_FOR_MS; waited += 100) {
      clock.advance(100);
      runAdminThread();
    }

    assertThat(Errors.forException(done.handle((ok, e) -> e).join()))
        .isEqualTo(Errors.NOT_CONTROLLER);
    assertThatThrownBy(() -> client.fenceBroker(1, 0))
        .as("a blocking call fails at once")
        .isInstanceOf(NotControllerException.class);
    assertThat(remoteCalls).isEmpty();
  }

  @Test
  void anAdminCallSentDuringAnElectionGoesToTheControllerElected() {
    registerBroker2();
    leader = OptionalInt.empty();
    CompletableFuture<ControllerChannel.AdminResult> done =
        client.createTopic(NewTopic.placed("orders", 1, 1, Map.of()), false);
    runAdminThread();
    clock.advance(ControllerClient.FIRST_RETRY_MS);
    runAdminThread();
    assertThat(done).isNotDone();

    leader = OptionalInt.of(2);
    clock.advance(2 * ControllerClient.FIRST_RETRY_MS);
    runAdminThread();

    assertThat(done.join().metadataOffset()).isEqualTo(42);
    assertThat(remoteCalls).singleElement().asString().startsWith("createTopic[");
  }

  @Test
  void aControllerThatAnswersNotControllerIsAskedAgainWhereverLeadershipWent() {
    registerBroker2();
    leader = OptionalInt.of(2);
    remoteFailure = new NotControllerException("broker 2 is not the active controller");
    CompletableFuture<ControllerChannel.AdminResult> done = client.deleteTopic("orders");
    runAdminThread();
    assertThat(done).as("leadership moved: not an answer yet").isNotDone();

    remoteFailure = null;
    clock.advance(ControllerClient.FIRST_RETRY_MS);
    runAdminThread();

    assertThat(done.join().metadataOffset()).isEqualTo(42);
    assertThat(remoteCalls).hasSize(2);
  }

  @Test
  void anAdminCallWaitingForAControllerFailsWhenTheBrokerShutsDown() {
    leader = OptionalInt.empty();
    BrokerConfig config = LocalReplicas.config(dir, true, 1, 1, 1, "");
    MetadataQuorum quorum = new LeaderSaysSo();
    ControllerClient stopping =
        new ControllerClient(
            quorum,
            null,
            remote(),
            new ControllerLocator(() -> config, quorum),
            adminThread::add,
            (delayMs, task) -> {
              throw new java.util.concurrent.RejectedExecutionException("scheduler shut down");
            },
            clock,
            RETRY_FOR_MS);

    CompletableFuture<ControllerChannel.AdminResult> done = stopping.deleteTopic("orders");
    runAdminThread();

    assertThat(done).as("failed, not left waiting for a retry that cannot come").isDone();
    assertThat(Errors.forException(done.handle((ok, e) -> e).join()))
        .isEqualTo(Errors.NOT_CONTROLLER);
  }

  @Test
  void aControllerThatDoesNotAnswerIsNotAskedAgain() {
    registerBroker2();
    leader = OptionalInt.of(2);
    remoteFailure = new ControllerUnreachableException("controller 2 did not answer", null);
    CompletableFuture<ControllerChannel.AdminResult> done = client.deleteTopic("orders");
    runAdminThread();

    assertThatThrownBy(done::join)
        .as("it may have deleted the topic")
        .hasCauseInstanceOf(ControllerUnreachableException.class);
    assertThat(remoteCalls).hasSize(1);
  }

  @Test
  void aControllerWhoseAddressIsNotKnownHereIsNotController() {
    leader = OptionalInt.of(3);

    assertThatThrownBy(() -> client.reportUnreachable(1, 2))
        .isInstanceOf(NotControllerException.class);
    assertThat(remoteCalls).isEmpty();
  }

  @Test
  void blockingCallsRunOnTheCallersThread() {
    registerBroker2();
    leader = OptionalInt.of(2);

    client.reportUnreachable(1, 3);

    assertThat(remoteCalls).singleElement().asString().startsWith("reportUnreachable[");
    assertThat(adminThread).isEmpty();
  }
}
