package dev.tributary.metadata.ratis;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Joining and leaving the listeners of the running quorum.
 *
 * <p>Joining: makes a listener a member of the running quorum's configuration: a broker added to a
 * running cluster (Kafka's broker-only node joining, here {@code ./tributary add-broker}) starts
 * its Ratis peer with itself in the group, but the voters do not know it until the configuration in
 * their log names it. So the listener asks the leader, with Ratis' {@code setConfiguration} in
 * {@code ADD} mode: the leader catches the listener up (log entries, or a snapshot once the log was
 * purged) and then commits a configuration with it as a listener. The configuration is Raft log
 * state, so it survives restarts of every member, and the request is idempotent: a listener already
 * in the configuration (every restart, and every listener of a cluster started with it in its
 * static list) gets "no change" at once.
 *
 * <p>Runs on a daemon thread of its own until the leader accepted it or the quorum closed: no
 * leader yet, another reconfiguration in progress, or the leader still catching up a slow peer are
 * all retried after {@link #RETRY_MS}.
 */
final class QuorumListeners {
  private static final Logger log = LoggerFactory.getLogger(QuorumListeners.class);
  static final long RETRY_MS = 1_000;

  private QuorumListeners() {}

  /**
   * Starts the join on a thread named {@code tributary-quorum-join-b<id>}; returns at once.
   *
   * @param voters the voters' peers (who can take the request: the client finds the leader)
   * @param self this listener's peer
   * @param closed true once the quorum member closed: the thread then ends
   */
  static Thread startJoining(
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

  /** Who sends a configuration change from inside the leader's server. */
  record Caller(ClientId clientId, RaftPeerId serverId, long callId) {}

  /**
   * Asks {@code server} (the leader) to drop {@code brokerId} from the listeners of {@code conf},
   * keeping every voter and other listener: compare-and-set against {@code conf}, so that a
   * concurrent change is not undone. Asynchronous; a failure is logged, and the listener then keeps
   * receiving the log, which is harmless. Nothing happens if it is not a listener of {@code conf}.
   */
  static void remove(RaftServer server, RaftConfiguration conf, int brokerId, Caller caller) {
    List<RaftPeer> voters = List.copyOf(conf.getAllPeers(RaftPeerRole.FOLLOWER));
    List<RaftPeer> listeners = List.copyOf(conf.getAllPeers(RaftPeerRole.LISTENER));
    RaftPeerId leaving = RaftPeerId.valueOf(String.valueOf(brokerId));
    if (listeners.stream().noneMatch(p -> p.getId().equals(leaving))) {
      return;
    }
    SetConfigurationRequest.Arguments arguments =
        SetConfigurationRequest.Arguments.newBuilder()
            .setServersInNewConf(voters)
            .setListenersInNewConf(
                listeners.stream().filter(p -> !p.getId().equals(leaving)).toList())
            .setServersInCurrentConf(voters)
            .setListenersInCurrentConf(listeners)
            .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
            .build();
    try {
      server
          .setConfigurationAsync(
              new SetConfigurationRequest(
                  caller.clientId(),
                  caller.serverId(),
                  RatisMetadataQuorum.GROUP_ID,
                  caller.callId(),
                  arguments))
          .whenComplete(
              (reply, failure) -> {
                if (failure != null || !reply.isSuccess()) {
                  log.warn(
                      "Could not remove broker {} from the metadata quorum's listeners: {}",
                      brokerId,
                      failure != null ? failure : reply.getException());
                } else {
                  log.info("Broker {} is no longer a listener of the metadata quorum", brokerId);
                }
              });
    } catch (IOException | RuntimeException e) {
      log.warn("Could not remove broker {} from the metadata quorum's listeners", brokerId, e);
    }
  }
}
