package dev.tributary.kafka;

import dev.tributary.server.AdminService;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.UnregisterBrokerResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.UnregisterBrokerRequest;
import org.apache.kafka.common.requests.UnregisterBrokerResponse;

/**
 * UnregisterBroker (v0; {@code kafka-cluster unregister --id N}, Admin#unregisterBroker) through
 * {@link AdminService#unregisterBroker}, answered once this broker's metadata no longer lists it.
 * Errors: BROKER_ID_NOT_REGISTERED for an unknown broker; INVALID_REQUEST while it runs or while
 * partitions still list it (Tributary is stricter than Kafka here: ADR 0028);
 * CLUSTER_AUTHORIZATION_FAILED without ADMIN on the cluster.
 */
final class UnregisterBrokerApi implements ApiHandler {
  private final AdminService admin;

  UnregisterBrokerApi(AdminService admin) {
    this.admin = admin;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.UNREGISTER_BROKER;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 0;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    int brokerId = ((UnregisterBrokerRequest) request).data().brokerId();
    return AdminCalls.attempt(() -> admin.unregisterBroker(context.request(), brokerId))
        .handle(
            (done, failure) -> {
              AdminCalls.Outcome outcome = AdminCalls.Outcome.of(failure);
              return new UnregisterBrokerResponse(
                  new UnregisterBrokerResponseData()
                      .setErrorCode(outcome.error().code())
                      .setErrorMessage(outcome.message()));
            });
  }
}
