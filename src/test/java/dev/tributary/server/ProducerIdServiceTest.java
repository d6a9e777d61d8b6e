package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.ManualClock;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.BrokerNotAvailableException;
import dev.tributary.common.errors.Errors;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.metadata.ProducerIdsBlock;
import dev.tributary.replication.ReplicaManager;
import dev.tributary.security.AclBinding;
import dev.tributary.security.AclOperation;
import dev.tributary.security.Authorizer;
import dev.tributary.security.PatternType;
import dev.tributary.security.ResourceType;
import dev.tributary.security.SecurityImage;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** InitProducerId as the Kafka adapter will call it: ids, authorisation, refusals. */
class ProducerIdServiceTest {
  static final RequestContext ALICE = new RequestContext("User:alice", "10.0.0.1", false);

  final ManualClock clock = new ManualClock();
  final AtomicInteger denials = new AtomicInteger();
  SecurityImage security = SecurityImage.EMPTY;
  boolean ready = true;
  CompletableFuture<ProducerIdsBlock> nextBlock =
      CompletableFuture.completedFuture(new ProducerIdsBlock(1, 4_000, 1000));
  final ProducerIdManager producerIds = new ProducerIdManager(1, () -> nextBlock, clock);
  final MetadataImage image =
      MetadataImage.EMPTY.replay(0, new MetadataRecord.TopicCreated(new Uuid(1, 1), "orders"));

  ProducerIdService service(boolean securityEnabled) {
    AccessControl access =
        new AccessControl(
            new Authorizer(() -> security, Map.of(), Set.of()),
            securityEnabled,
            denials::incrementAndGet);
    return new ProducerIdService(new Broker(), access);
  }

  static ProducerIdService.InitProducerIdResult init(
      ProducerIdService service, String transactionalId) {
    CompletableFuture<ProducerIdService.InitProducerIdResult> answer =
        service.initProducerId(ALICE, transactionalId);
    assertThat(answer).isDone();
    return answer.join();
  }

  @Test
  void anIdempotentProducerGetsANewIdWithEpochZero() {
    ProducerIdService service = service(false);

    ProducerIdService.InitProducerIdResult first = init(service, null);
    ProducerIdService.InitProducerIdResult second = init(service, null);

    assertThat(first)
        .isEqualTo(new ProducerIdService.InitProducerIdResult(Errors.NONE, null, 4_000, (short) 0));
    assertThat(second.producerId()).isEqualTo(4_001);
  }

  @Test
  void aTransactionalIdIsRefusedAsTransactionsAreNotSupported() {
    ProducerIdService.InitProducerIdResult refused = init(service(false), "tx-1");
    assertThat(refused.error()).isEqualTo(Errors.INVALID_REQUEST);
    assertThat(refused.producerId()).isEqualTo(-1);
    assertThat(refused.producerEpoch()).isEqualTo((short) -1);
  }

  @Test
  void writeOnTheClusterOrOnSomeTopicIsNeededAsKafkasIdempotentWrite() {
    ProducerIdService service = service(true);
    ProducerIdService.InitProducerIdResult denied = init(service, null);
    assertThat(denied.error()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED);
    assertThat(denied.errorMessage()).contains("User:alice", "WRITE");
    assertThat(denials).hasValue(1);

    security =
        SecurityImage.EMPTY.withAcl(
            new AclBinding(
                "User:alice", AclOperation.WRITE, ResourceType.TOPIC, PatternType.PREFIXED, "ord"));
    assertThat(init(service, null).error()).isEqualTo(Errors.NONE);

    security =
        SecurityImage.EMPTY.withAcl(
            new AclBinding(
                "User:alice",
                AclOperation.WRITE,
                ResourceType.CLUSTER,
                PatternType.LITERAL,
                AclBinding.CLUSTER_NAME));
    assertThat(init(service, null).error()).isEqualTo(Errors.NONE);

    security =
        SecurityImage.EMPTY.withAcl(
            new AclBinding(
                "User:alice",
                AclOperation.READ,
                ResourceType.TOPIC,
                PatternType.LITERAL,
                "orders"));
    assertThat(init(service, null).error()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED);
  }

  @Test
  void withoutABlockOfIdsTheAnswerIsRetriable() {
    nextBlock = new CompletableFuture<>();
    CompletableFuture<ProducerIdService.InitProducerIdResult> answer =
        service(false).initProducerId(ALICE, null);
    assertThat(answer).isNotDone();

    nextBlock.completeExceptionally(new dev.tributary.common.errors.NotControllerException("none"));

    assertThat(answer.join().error()).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);
  }

  @Test
  void aBrokerThatIsNotServingAnswersBrokerNotAvailable() {
    ready = false;
    assertThat(init(service(false), null).error()).isEqualTo(Errors.BROKER_NOT_AVAILABLE);
  }

  /** The running broker as the service sees it: its image and its producer ids. */
  final class Broker implements RunningBroker {
    private void requireReady() {
      if (!ready) {
        throw new BrokerNotAvailableException("Broker 1 is still starting");
      }
    }

    @Override
    public ProducerIdManager producerIdManager() {
      requireReady();
      return producerIds;
    }

    @Override
    public MetadataImage metadata() {
      requireReady();
      return image;
    }

    @Override
    public ReplicaManager replicaManager() {
      throw new UnsupportedOperationException();
    }

    @Override
    public ControllerClient controller() {
      throw new UnsupportedOperationException();
    }

    @Override
    public int brokerId() {
      return 1;
    }

    @Override
    public BrokerConfig config() {
      throw new UnsupportedOperationException();
    }

    @Override
    public String clusterId() {
      throw new UnsupportedOperationException();
    }

    @Override
    public int activeControllerId() {
      return 1;
    }

    @Override
    public long controllerEpoch() {
      return 1;
    }

    @Override
    public Optional<ControllerChannel.Endpoint> brokerEndpoint(int brokerId) {
      return Optional.empty();
    }

    @Override
    public boolean isReady() {
      return ready;
    }
  }
}
