package dev.tributary.api;

import dev.tributary.server.MetadataWaiters;
import dev.tributary.server.ProduceService;
import dev.tributary.server.RequestContext;
import dev.tributary.transport.http.InternalApi;
import dev.tributary.transport.http.ProduceCodec;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The leader's side of a forwarded produce ({@value InternalApi#PRODUCE}): batch bytes from the
 * broker a REST client reached ({@link ProduceCodec}), appended through the same {@link
 * ProduceService} as every produce, for the client's principal, never forwarded again. {@link
 * InternalAuthFilter} has checked the cluster secret. The leader first catches up (up to {@value
 * #MAX_METADATA_WAIT_MS} ms, without holding a thread) with the metadata the forwarding broker had,
 * so a partition created a moment ago is not refused as unknown. Answers 200 with every partition's
 * result, errors included, in Kafka's codes.
 */
@RestController
class InternalProduceEndpoint {
  static final long MAX_METADATA_WAIT_MS = 2_000;
  private static final MediaType PRODUCE = MediaType.parseMediaType(InternalApi.PRODUCE_MEDIA_TYPE);

  private final ProduceService produce;
  private final MetadataWaiters metadata;

  InternalProduceEndpoint(ProduceService produce, MetadataWaiters metadata) {
    this.produce = produce;
    this.metadata = metadata;
  }

  @PostMapping(InternalApi.PRODUCE)
  CompletableFuture<ResponseEntity<byte[]>> produce(@RequestBody byte[] body) {
    ProduceCodec.Request request;
    try {
      request = ProduceCodec.decodeRequest(ByteBuffer.wrap(body));
    } catch (IllegalArgumentException e) {
      throw RestException.badRequest("malformed forwarded produce body: " + e.getMessage());
    }
    RequestContext client = new RequestContext(request.principal(), request.clientAddress(), true);
    return metadata
        .awaitOffset(request.metadataOffset(), MAX_METADATA_WAIT_MS)
        .handle((caughtUp, late) -> null) // caught up or not, produce with what this broker has
        .thenCompose(
            ignored ->
                produce.produce(
                    client,
                    new ProduceService.ProduceRequest(
                        request.batches(),
                        request.acks(),
                        request.timeoutMs(),
                        body.length,
                        false)))
        .thenApply(
            response ->
                ResponseEntity.ok()
                    .contentType(PRODUCE)
                    .body(ProduceCodec.encode(response.partitions())));
  }
}
