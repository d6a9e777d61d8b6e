package dev.tributary.kafka;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeResponse;

/**
 * SaslHandshake and SaslAuthenticate once a connection is past authentication. The exchange itself
 * happens before any request reaches the handlers: kafka-clients' SASL server on the connection
 * answers both (and ApiVersions) until the client has authenticated. Advertising them here puts
 * them in every ApiVersions answer, which clients read to pick their SASL versions. A request that
 * still arrives gets ILLEGAL_SASL_STATE, as from Kafka's KafkaApis (on a listener without SASL
 * too).
 */
final class SaslApis {
  private SaslApis() {}

  /** SaslHandshake (v0–1, what kafka-clients' SASL server speaks). */
  static final class Handshake implements ApiHandler {
    @Override
    public ApiKeys apiKey() {
      return ApiKeys.SASL_HANDSHAKE;
    }

    @Override
    public short minVersion() {
      return ApiKeys.SASL_HANDSHAKE.oldestVersion();
    }

    @Override
    public short maxVersion() {
      return ApiKeys.SASL_HANDSHAKE.latestVersion();
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(
        KafkaRequestContext context, AbstractRequest request) {
      return CompletableFuture.completedFuture(
          new SaslHandshakeResponse(
              new SaslHandshakeResponseData().setErrorCode(Errors.ILLEGAL_SASL_STATE.code())));
    }
  }

  /** SaslAuthenticate (v0–2, what kafka-clients' SASL server speaks). */
  static final class Authenticate implements ApiHandler {
    @Override
    public ApiKeys apiKey() {
      return ApiKeys.SASL_AUTHENTICATE;
    }

    @Override
    public short minVersion() {
      return ApiKeys.SASL_AUTHENTICATE.oldestVersion();
    }

    @Override
    public short maxVersion() {
      return ApiKeys.SASL_AUTHENTICATE.latestVersion();
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(
        KafkaRequestContext context, AbstractRequest request) {
      return CompletableFuture.completedFuture(
          new SaslAuthenticateResponse(
              new SaslAuthenticateResponseData()
                  .setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
                  .setErrorMessage(
                      "SaslAuthenticate request received after successful authentication")));
    }
  }
}
