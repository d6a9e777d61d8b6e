package dev.tributary.kafka;

import dev.tributary.server.ProducerIdService;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;

/**
 * InitProducerId (v0–5) for idempotent producers, which kafka-clients sends before its first
 * produce (idempotence is its default). Only the non-transactional form: a transactional id is
 * refused with INVALID_REQUEST by the service. The versions from 6 carry KIP-939's two-phase commit
 * fields, which only transactions use.
 */
final class InitProducerIdApi implements ApiHandler {
  private final ProducerIdService producerIds;

  InitProducerIdApi(ProducerIdService producerIds) {
    this.producerIds = producerIds;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.INIT_PRODUCER_ID;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 5;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    InitProducerIdRequestData data = ((InitProducerIdRequest) request).data();
    return producerIds
        .initProducerId(context.request(), data.transactionalId())
        .thenApply(
            result ->
                new InitProducerIdResponse(
                    new InitProducerIdResponseData()
                        .setErrorCode(result.error().code())
                        .setProducerId(result.producerId())
                        .setProducerEpoch(result.producerEpoch())));
  }
}
