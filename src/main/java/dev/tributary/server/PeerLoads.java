package dev.tributary.server;

import java.util.concurrent.CompletableFuture;

/**
 * Asks another broker for its load ({@link BrokerLoadReport}, what its {@link BrokerLoadService}
 * answers), for the balancer. Asynchronous: no thread waits for the answer. The future completes
 * exceptionally when the broker could not be reached or answered nonsense; the balancer then plans
 * without that broker's figures and says so.
 */
public interface PeerLoads {
  CompletableFuture<BrokerLoadReport> load(int brokerId);

  /** For a broker that has no peers: every other broker is unreachable. */
  PeerLoads NONE =
      brokerId ->
          CompletableFuture.failedFuture(
              new java.io.IOException(
                  "this broker has no peers; broker " + brokerId + " is not reachable"));
}
