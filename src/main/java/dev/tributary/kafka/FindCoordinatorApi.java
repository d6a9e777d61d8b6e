package dev.tributary.kafka;

import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;

/**
 * FindCoordinator (v0–6; v4+ batch several keys): the broker that leads the group's partition of
 * {@code __consumer_offsets}, at its Kafka listener. Like Kafka: the topic is created on the first
 * request; while it does not exist, its partition has no leader or the leader is not alive with a
 * Kafka listener, the answer is COORDINATOR_NOT_AVAILABLE and the client asks again; a principal
 * that may not read the group gets GROUP_AUTHORIZATION_FAILED. Only group coordinators exist here:
 * a transaction (key type 1) or share-group (2) key is INVALID_REQUEST.
 */
final class FindCoordinatorApi implements ApiHandler {
  private static final byte GROUP = 0;

  private final GroupBackend groups;

  FindCoordinatorApi(GroupBackend groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.FIND_COORDINATOR;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 6;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    FindCoordinatorRequestData data = ((FindCoordinatorRequest) request).data();
    short version = context.apiVersion();
    byte keyType = version >= 1 ? data.keyType() : GROUP;
    List<String> keys = version >= 4 ? data.coordinatorKeys() : List.of(data.key());
    List<FindCoordinatorResponseData.Coordinator> found = new ArrayList<>();
    for (String key : keys) {
      found.add(find(context, keyType, key));
    }
    FindCoordinatorResponseData response = new FindCoordinatorResponseData().setThrottleTimeMs(0);
    if (version >= 4) {
      response.setCoordinators(found);
    } else {
      FindCoordinatorResponseData.Coordinator only = found.get(0);
      response
          .setErrorCode(only.errorCode())
          .setErrorMessage(version >= 1 ? only.errorMessage() : null)
          .setNodeId(only.nodeId())
          .setHost(only.host())
          .setPort(only.port());
    }
    return CompletableFuture.completedFuture(new FindCoordinatorResponse(response));
  }

  private FindCoordinatorResponseData.Coordinator find(
      KafkaRequestContext context, byte keyType, String key) {
    if (keyType != GROUP) {
      return error(
          key,
          Errors.INVALID_REQUEST,
          "Only group coordinators exist here (key type 0); transactions and share groups are"
              + " not supported");
    }
    if (!groups.allows(context, AclOperation.READ, ResourceType.GROUP, key)) {
      return error(key, Errors.GROUP_AUTHORIZATION_FAILED, null);
    }
    int brokerId = groups.findCoordinator().applyAsInt(key);
    Optional<AdvertisedListener> listener =
        brokerId < 0
            ? Optional.empty()
            : groups
                .metadata()
                .get()
                .broker(brokerId)
                .filter(broker -> !broker.fenced())
                .flatMap(MetadataApi::kafkaListener);
    if (listener.isEmpty()) {
      return error(key, Errors.COORDINATOR_NOT_AVAILABLE, null);
    }
    return new FindCoordinatorResponseData.Coordinator()
        .setKey(key)
        .setNodeId(brokerId)
        .setHost(listener.get().host())
        .setPort(listener.get().port())
        .setErrorCode(Errors.NONE.code());
  }

  private static FindCoordinatorResponseData.Coordinator error(
      String key, Errors error, String message) {
    return new FindCoordinatorResponseData.Coordinator()
        .setKey(key)
        .setNodeId(-1)
        .setHost("")
        .setPort(-1)
        .setErrorCode(error.code())
        .setErrorMessage(message);
  }
}
