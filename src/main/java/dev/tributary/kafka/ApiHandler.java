package dev.tributary.kafka;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * One Kafka API, as a thin adapter over the broker's services: it reads the parsed request, calls
 * the services, and builds the response with Kafka's error codes. It holds no broker logic.
 */
interface ApiHandler {
  ApiKeys apiKey();

  /** The versions accepted; exactly those implemented. */
  short minVersion();

  short maxVersion();

  /**
   * The lowest version advertised in ApiVersions: {@link #minVersion} but for Produce, whose
   * versions 0–2 are advertised and refused ({@link LegacyProduceRefusal}).
   */
  default short advertisedMinVersion() {
    return minVersion();
  }

  /**
   * Answers the request; the future may complete on any thread. A null response means none is sent
   * (Produce with acks=0). A failed future is answered with the request's error response, or the
   * connection is closed when there is none.
   */
  CompletableFuture<AbstractResponse> handle(KafkaRequestContext context, AbstractRequest request);
}
