package dev.tributary.kafka;

import dev.tributary.common.Scheduler;
import dev.tributary.kafka.network.InboundRequest;
import dev.tributary.kafka.security.ApiKeyPrincipal;
import dev.tributary.server.RequestContext;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestAndSize;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka listener's request dispatch (Kafka's KafkaApis): parses each request with
 * kafka-clients' generated messages, hands it to the {@link ApiHandler} of its API, and writes the
 * answer back on its connection. Only APIs and versions a handler implements are advertised in
 * ApiVersions and accepted; anything else closes the connection, as Kafka does for a request it
 * cannot read.
 *
 * <p>Requests run on {@code executor} (the request handler threads), never on a network thread; a
 * handler that waits (a long-polling fetch, a group join) returns a future and holds no thread.
 */
public final class KafkaApis implements Consumer<InboundRequest> {
  private static final Logger logger = LoggerFactory.getLogger(KafkaApis.class);

  private final Map<ApiKeys, ApiHandler> handlers = new EnumMap<>(ApiKeys.class);
  private final Executor executor;
  private final Scheduler scheduler;

  KafkaApis(List<ApiHandler> apis, Executor executor, Scheduler scheduler) {
    apis.forEach(api -> handlers.put(api.apiKey(), api));
    this.executor = executor;
    this.scheduler = scheduler;
  }

  /** What ApiVersions answers: every implemented API with its exact version range. */
  ApiVersionsResponseData.ApiVersionCollection apiVersions() {
    ApiVersionsResponseData.ApiVersionCollection versions =
        new ApiVersionsResponseData.ApiVersionCollection();
    versions.add(
        new ApiVersionsResponseData.ApiVersion()
            .setApiKey(ApiKeys.API_VERSIONS.id)
            .setMinVersion(ApiKeys.API_VERSIONS.oldestVersion())
            .setMaxVersion(ApiKeys.API_VERSIONS.latestVersion()));
    handlers.values().stream()
        .sorted((a, b) -> Short.compare(a.apiKey().id, b.apiKey().id))
        .forEach(
            api ->
                versions.add(
                    new ApiVersionsResponseData.ApiVersion()
                        .setApiKey(api.apiKey().id)
                        .setMinVersion(api.advertisedMinVersion())
                        .setMaxVersion(api.maxVersion())));
    return versions;
  }

  /** The ApiVersions answer at {@code version}, for the handler and the SASL authenticator. */
  ApiVersionsResponse apiVersionsResponse(short version) {
    return new ApiVersionsResponse(
        new ApiVersionsResponseData()
            .setErrorCode((short) 0)
            .setThrottleTimeMs(0)
            .setApiKeys(apiVersions()));
  }

  @Override
  public void accept(InboundRequest request) {
    executor.execute(() -> handle(request));
  }

  private void handle(InboundRequest inbound) {
    if (inbound.principal() instanceof ApiKeyPrincipal key && key.revoked()) {
      // Deleted or replaced since the connection authenticated: no more requests on it, and a new
      // connection cannot authenticate with it (as with a deleted key over REST).
      logger.info(
          "Closing {}: API key {} of {} was revoked", inbound.connectionId(), key.keyId(), key);
      inbound.close();
      return;
    }
    org.apache.kafka.common.requests.RequestContext kafkaContext =
        new org.apache.kafka.common.requests.RequestContext(
            inbound.header(),
            inbound.connectionId(),
            inbound.clientAddress(),
            inbound.principal(),
            inbound.listenerName(),
            inbound.securityProtocol(),
            inbound.client(),
            false);
    ApiKeys apiKey = inbound.header().apiKey();
    short version = inbound.header().apiVersion();
    if (apiKey == ApiKeys.API_VERSIONS) {
      answerApiVersions(inbound, kafkaContext);
      return;
    }
    if (apiKey == ApiKeys.PRODUCE && version <= LegacyProduceRefusal.LAST_LEGACY_VERSION) {
      refuseLegacyProduce(inbound, version);
      return;
    }
    ApiHandler handler = handlers.get(apiKey);
    if (handler == null || version < handler.minVersion() || version > handler.maxVersion()) {
      logger.debug(
          "Closing {}: {} v{} is not supported (client {})",
          inbound.connectionId(),
          apiKey,
          version,
          inbound.header().clientId());
      inbound.close();
      return;
    }
    AbstractRequest request;
    try {
      RequestAndSize parsed = kafkaContext.parseRequest(inbound.body());
      request = parsed.request;
    } catch (RuntimeException e) {
      logger.debug(
          "Closing {}: unreadable {} v{}: {}",
          inbound.connectionId(),
          apiKey,
          version,
          e.toString());
      inbound.close();
      return;
    }
    KafkaRequestContext context =
        new KafkaRequestContext(
            inbound.header(),
            inbound.connectionId(),
            inbound.listenerName().value(),
            new RequestContext(
                inbound.principal().toString(), inbound.clientAddress().getHostAddress(), false));
    CompletableFuture<AbstractResponse> answer;
    try {
      answer = handler.handle(context, request);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answer.whenComplete(
        (response, failure) -> send(inbound, kafkaContext, request, response, failure));
  }

  private void send(
      InboundRequest inbound,
      org.apache.kafka.common.requests.RequestContext kafkaContext,
      AbstractRequest request,
      AbstractResponse response,
      Throwable failure) {
    try {
      if (failure != null && isAcksZeroProduce(request)) {
        inbound.close(); // no response can carry the error: the client refreshes its metadata
        return;
      }
      if (failure != null) {
        org.apache.kafka.common.protocol.Errors error = KafkaErrors.of(failure);
        if (error == org.apache.kafka.common.protocol.Errors.UNKNOWN_SERVER_ERROR) {
          logger.error(
              "Unexpected error answering {} from {}",
              request.apiKey(),
              inbound.connectionId(),
              failure);
        }
        response = request.getErrorResponse(0, error.exception(KafkaErrors.message(failure)));
        if (response == null) {
          inbound.close();
          return;
        }
      }
      if (response == null) {
        inbound.noResponse();
        return;
      }
      inbound.respond(kafkaContext.buildResponseSend(response));
      int throttleTimeMs = response.throttleTimeMs();
      if (throttleTimeMs > 0) {
        inbound.startThrottling();
        scheduler.schedule(throttleTimeMs, inbound::endThrottling);
      }
    } catch (RuntimeException e) {
      logger.error(
          "Could not answer {} from {}; closing it", request.apiKey(), inbound.connectionId(), e);
      inbound.close();
    }
  }

  private static void refuseLegacyProduce(InboundRequest inbound, short version) {
    LegacyProduceRefusal.Request request;
    try {
      request = LegacyProduceRefusal.parse(inbound.body());
    } catch (IllegalArgumentException e) {
      inbound.close();
      return;
    }
    if (request.acks() == 0) {
      inbound.close(); // acks=0 has no answer to carry the error
      return;
    }
    inbound.respond(
        LegacyProduceRefusal.response(inbound.header().correlationId(), version, request));
  }

  private static boolean isAcksZeroProduce(AbstractRequest request) {
    return request instanceof org.apache.kafka.common.requests.ProduceRequest produce
        && produce.acks() == 0;
  }

  /**
   * ApiVersions, including the known traps: a version this broker does not know is answered with
   * UNSUPPORTED_VERSION at version 0 and the supported ranges (so the client can pick one), and the
   * answer's header is always version 0 (kafka-clients' RequestContext does both).
   */
  private void answerApiVersions(
      InboundRequest inbound, org.apache.kafka.common.requests.RequestContext kafkaContext) {
    try {
      ApiVersionsRequest request =
          (ApiVersionsRequest) kafkaContext.parseRequest(inbound.body()).request;
      ApiVersionsResponseData data =
          new ApiVersionsResponseData().setThrottleTimeMs(0).setApiKeys(apiVersions());
      if (request.hasUnsupportedRequestVersion()) {
        data.setErrorCode(org.apache.kafka.common.protocol.Errors.UNSUPPORTED_VERSION.code());
      } else if (!request.isValid()) {
        data.setErrorCode(org.apache.kafka.common.protocol.Errors.INVALID_REQUEST.code());
      }
      inbound.respond(kafkaContext.buildResponseSend(new ApiVersionsResponse(data)));
    } catch (RuntimeException e) {
      inbound.close();
    }
  }
}
