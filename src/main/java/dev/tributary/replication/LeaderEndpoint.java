package dev.tributary.replication;

import java.io.IOException;

/**
 * How a follower reaches the leaders it copies from: blocking calls, one at a time per fetcher. The
 * HTTP adapter lives in {@code transport.http}; tests use an in-memory one that calls the leader's
 * {@link ReplicaManager} directly.
 */
public interface LeaderEndpoint {
  /**
   * For a broker that follows nobody (a cluster of one): every call fails as a refused connection
   * would.
   */
  LeaderEndpoint NONE =
      new LeaderEndpoint() {
        @Override
        public ReplicaFetch.Response fetch(int leaderId, ReplicaFetch.Request request)
            throws IOException {
          throw new IOException(
              "this broker follows nobody; no leader " + leaderId + " to fetch from");
        }

        @Override
        public ReplicaFetch.EpochResponse epochEndOffsets(
            int leaderId, ReplicaFetch.EpochRequest request) throws IOException {
          throw new IOException("this broker follows nobody; no leader " + leaderId + " to ask");
        }
      };

  /** Fetches from {@code leaderId}; may be held by the leader up to the request's max wait. */
  ReplicaFetch.Response fetch(int leaderId, ReplicaFetch.Request request) throws IOException;

  /** Asks {@code leaderId} where the given epochs end in its log. */
  ReplicaFetch.EpochResponse epochEndOffsets(int leaderId, ReplicaFetch.EpochRequest request)
      throws IOException;
}
