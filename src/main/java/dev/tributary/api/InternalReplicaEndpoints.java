package dev.tributary.api;

import dev.tributary.auth.RequestContexts;
import dev.tributary.replication.ReplicaFetch;
import dev.tributary.server.FetchService;
import dev.tributary.transport.http.InternalApi;
import dev.tributary.transport.http.ReplicaFetchCodec;
import jakarta.servlet.http.HttpServletRequest;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The leader's side of replica fetch for other brokers: binary bodies ({@link ReplicaFetchCodec});
 * {@link InternalAuthFilter} has already checked the cluster secret, and the replica manager checks
 * the sender's broker epoch. A fetch that waits for data holds no thread (an asynchronous servlet
 * response).
 */
@RestController
class InternalReplicaEndpoints {
  private static final MediaType REPLICA = MediaType.parseMediaType(InternalApi.REPLICA_MEDIA_TYPE);
  private final FetchService fetch;
  private final RequestContexts contexts;

  InternalReplicaEndpoints(FetchService fetch, RequestContexts contexts) {
    this.fetch = fetch;
    this.contexts = contexts;
  }

  @PostMapping(InternalApi.REPLICA_FETCH)
  CompletableFuture<ResponseEntity<byte[]>> fetch(
      @RequestBody byte[] body, HttpServletRequest http) {
    ReplicaFetch.Request request =
        decode(() -> ReplicaFetchCodec.decodeRequest(ByteBuffer.wrap(body)));
    return fetch
        .replicaFetch(contexts.of(http), request)
        .thenApply(
            response ->
                ResponseEntity.ok().contentType(REPLICA).body(ReplicaFetchCodec.encode(response)));
  }

  @PostMapping(InternalApi.REPLICA_EPOCHS)
  ResponseEntity<byte[]> epochEndOffsets(@RequestBody byte[] body, HttpServletRequest http) {
    ReplicaFetch.EpochRequest request =
        decode(() -> ReplicaFetchCodec.decodeEpochRequest(ByteBuffer.wrap(body)));
    return ResponseEntity.ok()
        .contentType(REPLICA)
        .body(ReplicaFetchCodec.encode(fetch.replicaEpochEndOffsets(contexts.of(http), request)));
  }

  private interface Decoder<T> {
    T decode();
  }

  private static <T> T decode(Decoder<T> decoder) {
    try {
      return decoder.decode();
    } catch (IllegalArgumentException e) {
      throw RestException.badRequest("malformed replica fetch body: " + e.getMessage());
    }
  }
}
