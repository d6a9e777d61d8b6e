package dev.tributary.api;

import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.server.MetadataCache;
import dev.tributary.transport.http.Forwarding;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;

/**
 * Sends a read that reached a broker which does not lead the partition on to the leader, and relays
 * the answer as it is (status, content type, body, plus {@code X-Tributary-Served-By}). Only one
 * hop: a request that was already forwarded gets the NOT_LEADER error instead, so a stale view on
 * two brokers cannot make a loop.
 */
@Component
class LeaderProxy {
  private final MetadataCache broker;
  private final BrokerRelay relay;

  LeaderProxy(MetadataCache broker, BrokerRelay relay) {
    this.broker = broker;
    this.relay = relay;
  }

  CompletableFuture<ResponseEntity<byte[]>> forward(
      HttpServletRequest request, NotLeaderOrFollowerException notLeader) {
    if (request.getHeader(Forwarding.FORWARDED_HEADER) != null || notLeader.leaderId().isEmpty()) {
      throw notLeader;
    }
    BrokerImage leader = broker.metadata().brokers().get(notLeader.leaderId().getAsInt());
    if (leader == null) {
      throw notLeader;
    }
    return relay.relay(
        request,
        leader,
        null,
        List.of("X-Tributary-High-Watermark"),
        "Broker " + leader.brokerId() + " leads this partition but did not answer; retry shortly");
  }
}
