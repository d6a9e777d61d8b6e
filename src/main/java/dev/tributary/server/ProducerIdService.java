package dev.tributary.server;

import dev.tributary.common.errors.Errors;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.util.concurrent.CompletableFuture;

/**
 * InitProducerId for idempotent producers, for every protocol (Kafka's KafkaApis
 * handleInitProducerIdRequest with a null transactional id): a producer id unique in the cluster
 * ({@link ProducerIdManager}) and epoch 0. Kafka's clients call it once at start, and again after a
 * fatal sequence error when they reset their id (KIP-360). Transactions are not supported: a
 * request with a transactional id is refused with INVALID_REQUEST.
 *
 * <p>Authorisation as Kafka's: WRITE on the cluster (Kafka's IDEMPOTENT_WRITE) or WRITE on some
 * topic. The topic check looks at the topics that exist now: a principal whose only grants are
 * prefixes no existing topic matches is refused (Kafka would allow it); see
 * docs/adr/0018-idempotent-producers.md.
 *
 * <p>Thread-safe; holds no thread while a block of ids is on its way.
 */
public final class ProducerIdService {
  private final RunningBroker broker;
  private final AccessControl access;

  public ProducerIdService(RunningBroker broker, AccessControl access) {
    this.broker = broker;
    this.access = access;
  }

  /**
   * InitProducerId's answer: a producer id and epoch, or an error (then both are -1, as Kafka
   * answers).
   */
  public record InitProducerIdResult(
      Errors error, String errorMessage, long producerId, short producerEpoch) {
    static InitProducerIdResult of(long producerId) {
      return new InitProducerIdResult(Errors.NONE, null, producerId, (short) 0);
    }

    static InitProducerIdResult failed(Errors error, String message) {
      return new InitProducerIdResult(
          error, message, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH);
    }
  }

  /**
   * A new producer id with epoch 0 for an idempotent producer ({@code transactionalId} null).
   * Completes with an error (never exceptionally): CLUSTER_AUTHORIZATION_FAILED, INVALID_REQUEST
   * for a transactional id, COORDINATOR_LOAD_IN_PROGRESS while no block of ids can be had (the
   * client retries), BROKER_NOT_AVAILABLE while the broker is not serving.
   */
  public CompletableFuture<InitProducerIdResult> initProducerId(
      RequestContext context, String transactionalId) {
    if (transactionalId != null) {
      return CompletableFuture.completedFuture(
          InitProducerIdResult.failed(
              Errors.INVALID_REQUEST,
              "Transactions are not supported: send InitProducerId without a transactional id"));
    }
    ProducerIdManager producerIds;
    try {
      if (!mayWriteIdempotently(context)) {
        String refusal =
            access
                .denied(
                    context.principal(),
                    AclOperation.WRITE,
                    ResourceType.CLUSTER,
                    AccessControl.clusterName())
                .getMessage();
        return CompletableFuture.completedFuture(
            InitProducerIdResult.failed(Errors.CLUSTER_AUTHORIZATION_FAILED, refusal));
      }
      producerIds = broker.producerIdManager();
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(
          InitProducerIdResult.failed(Errors.forException(e), Errors.messageOf(e)));
    }
    return producerIds
        .generateProducerId()
        .handle(
            (producerId, failure) ->
                failure == null
                    ? InitProducerIdResult.of(producerId)
                    : InitProducerIdResult.failed(
                        Errors.forException(failure), Errors.messageOf(failure)));
  }

  private boolean mayWriteIdempotently(RequestContext context) {
    if (access.allows(
        context, AclOperation.WRITE, ResourceType.CLUSTER, AccessControl.clusterName())) {
      return true;
    }
    for (String topic : broker.metadata().topicsByName().keySet()) {
      if (access.allows(context, AclOperation.WRITE, ResourceType.TOPIC, topic)) {
        return true;
      }
    }
    return false;
  }
}
