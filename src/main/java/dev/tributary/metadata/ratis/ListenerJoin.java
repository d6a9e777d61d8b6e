package dev.tributary.metadata.ratis;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a listener a member of the running quorum's configuration: a broker added to a running
 * cluster (Kafka's broker-only node joining, here {@code ./tributary add-broker}) starts its Ratis
 * peer with itself in the group, but the voters do not know it until the configuration in their log
 * names it. So the listener asks the leader, with Ratis' {@code setConfiguration} in {@code ADD}
 * mode: the leader catches the listener up (log entries, or a snapshot once the log was purged) and
 * then commits a configuration with it as a listener. The configuration is Raft log state, so it
 * survives restarts of every member, and the request is idempotent: a listener already in the
 * configuration (every restart, and every listener of a cluster started with it in its static list)
 * gets "no change" at once.
 *
 * <p>Runs on a daemon thread of its own until the leader accepted it or the quorum closed: no
 * leader yet, another reconfiguration in progress, or the leader still catching up a slow peer are
 * all retried after {@link #RETRY_MS}.
 */
final class ListenerJoin {
  private static final Logger log = LoggerFactory.getLogger(ListenerJoin.class);
  static final long RETRY_MS = 1_000;

  private ListenerJoin() {}

  /**
   * Starts the join on a thread named {@code tributary-quorum-join-b<id>}; returns at once.
   *
   * @param voters the voters' peers (who can take the request: the client finds the leader)
   * @param self this listener's peer
   * @param closed true once the quorum member closed: the thread then ends
   */
  static Thread start(
      RaftGroup voters, RaftPeer self, Parameters parameters, BooleanSupplier closed) {
    Thread thread =
        new Thread(
            () -> joinUntilDone(voters, self, parameters, closed),
            "tributary-quorum-join-b" + self.getId());
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  private static void joinUntilDone(
      RaftGroup voters, RaftPeer self, Parameters parameters, BooleanSupplier closed) {
    SetConfigurationRequest.Arguments add =
        SetConfigurationRequest.Arguments.newBuilder()
            // Ratis 3.3 needs every list set (null fails its uniqueness check); ADD keeps the
            // voters and listeners it has and adds this one.
            .setServersInNewConf(List.of())
            .setListenersInNewConf(List.of(self))
            .setServersInCurrentConf(List.of())
            .setListenersInCurrentConf(List.of())
            .setMode(SetConfigurationRequest.Mode.ADD)
            .build();
    int attempt = 0;
    while (!closed.getAsBoolean()) {
      attempt++;
      try (RaftClient client = client(voters, parameters)) {
        RaftClientReply reply = client.admin().setConfiguration(add);
        if (reply.isSuccess()) {
          log.info(
              "Broker {} is a listener of the metadata quorum (configuration accepted by {}, attempt"
                  + " {})",
              self.getId(),
              reply.getServerId(),
              attempt);
          return;
        }
        log.info(
            "Joining the metadata quorum as a listener: attempt {} refused ({}); retrying",
            attempt,
            reply.getException() == null ? "no reason given" : reply.getException().getMessage());
      } catch (IOException | RuntimeException e) {
        log.info(
            "Joining the metadata quorum as a listener: attempt {} failed ({}); retrying",
            attempt,
            e.getMessage());
      }
      try {
        TimeUnit.MILLISECONDS.sleep(RETRY_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * A client that tries each voter a few times per attempt (the outer loop retries for as long as
   * it takes), so a closed quorum ends the thread within seconds.
   */
  private static RaftClient client(RaftGroup voters, Parameters parameters) {
    RaftProperties properties = new RaftProperties();
    RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
    return RaftClient.newBuilder()
        .setRaftGroup(voters)
        .setProperties(properties)
        .setParameters(parameters)
        .setRetryPolicy(
            RetryPolicies.retryUpToMaximumCountWithFixedSleep(
                10, TimeDuration.valueOf(200, TimeUnit.MILLISECONDS)))
        .build();
  }
}
