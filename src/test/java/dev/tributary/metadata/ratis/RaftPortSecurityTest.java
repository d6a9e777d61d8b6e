package dev.tributary.metadata.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.tributary.e2e.TestPorts;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.tls.TestCertificates;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Raft port of a quorum on mutual TLS: its members commit as usual, and a client that does not
 * present a certificate signed by the cluster CA cannot submit a batch — with no certificate, with
 * none over plaintext, or with a self-signed one. A client with a cluster certificate can (the
 * control: the refusals are the certificate's doing). Nor can a stranger add itself to the voters.
 * Also: the port listens on the configured host only. One quorum for the class; each test restores
 * what it checks.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RaftPortSecurityTest {
  @TempDir static Path dir;
  private static TestCertificates cluster;
  private static TestCertificates stranger;
  private static QuorumFixture quorum;

  @BeforeAll
  static void startQuorumOnMutualTls() {
    cluster = TestCertificates.generate(dir.resolve("cluster-ca"), "cluster");
    stranger = TestCertificates.selfSigned(dir.resolve("stranger"), "stranger");
    quorum =
        QuorumFixture.create(
                dir.resolve("quorum"),
                3,
                0,
                RatisQuorumOptions.DEFAULTS.withTls(
                    new RaftTls(cluster.keyManager(), cluster.trustManager())))
            .startAll();
  }

  @AfterAll
  static void stopQuorum() {
    if (quorum != null) {
      quorum.close();
    }
  }

  @Test
  void membersOnMutualTlsElectALeaderAndCommitOnEveryMember() {
    RatisMetadataQuorum leader = quorum.awaitLeader();
    MetadataImage committed = quorum.appendTopic(leader, "over-mtls");
    assertThat(committed.topic("over-mtls")).isPresent();
    quorum.awaitImages(leader.image());
  }

  @Test
  void aPlaintextClientCannotSubmitABatch() {
    assertRefused(new Parameters());
  }

  @Test
  void aClientWithoutACertificateCannotSubmitABatch() {
    // It trusts the cluster CA, so the broker's certificate checks out; only its own is missing.
    assertRefused(tls(new GrpcTlsConfig(null, cluster.trustManager(), false)));
  }

  @Test
  void aClientWhoseCertificateTheClusterCaDidNotSignCannotSubmitABatch() {
    assertRefused(tls(new GrpcTlsConfig(stranger.keyManager(), cluster.trustManager(), true)));
  }

  @Test
  void aClientWithAClusterCertificateCanSubmitABatch() {
    Parameters broker = tls(new GrpcTlsConfig(cluster.keyManager(), cluster.trustManager(), true));
    // Retried only should leadership move between reading the leader and sending: a batch that did
    // commit makes the retry a STALE no-op, and the topic is there either way.
    await("a batch from a client with a cluster certificate")
        .atMost(QuorumFixture.WAIT)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              RatisMetadataQuorum leader = quorum.awaitLeader();
              if (leader.image().topic("from-a-broker").isEmpty()) {
                RaftClientReply reply = submit(broker, leader, "from-a-broker");
                assertThat(reply.isSuccess()).as(String.valueOf(reply.getException())).isTrue();
              }
              assertThat(leader.image().topic("from-a-broker")).isPresent();
            });
  }

  @Test
  void aStrangerCannotAddItselfToTheVoters() {
    RatisMetadataQuorum leader = quorum.awaitLeader();
    List<RaftPeer> withStranger = new ArrayList<>(voters());
    withStranger.add(
        RatisMetadataQuorum.peer(
            9, new InetSocketAddress("127.0.0.1", TestPorts.next()), RaftPeerRole.FOLLOWER));
    Parameters strangerTls =
        tls(new GrpcTlsConfig(stranger.keyManager(), cluster.trustManager(), true));
    Throwable failure =
        catchThrowable(
            () -> {
              try (RaftClient client = client(strangerTls, leader)) {
                RaftClientReply reply = client.admin().setConfiguration(withStranger);
                if (!reply.isSuccess()) {
                  throw reply.getException();
                }
              }
            });
    assertRefusedByTransport(failure);
    assertThat(leader.division().getRaftConf().getAllPeers())
        .extracting(peer -> peer.getId().toString())
        .containsExactlyInAnyOrder("1", "2", "3");
  }

  @Test
  void theRaftPortListensOnlyOnTheHostInTheVoterList() throws IOException {
    int port = quorum.voters.get(1).getPort();
    try (Socket configured = new Socket()) {
      configured.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    }
    // Another loopback address reaches the same machine: it would connect if Ratis bound the
    // wildcard address.
    assertThatThrownBy(
            () -> {
              try (Socket other = new Socket()) {
                other.connect(new InetSocketAddress("127.0.0.2", port), 5_000);
              }
            })
        .isInstanceOf(ConnectException.class);
  }

  /** A stranger's batch is refused, and nothing it sent reached any member's image. */
  private static void assertRefused(Parameters clientParameters) {
    RatisMetadataQuorum leader = quorum.awaitLeader();
    MetadataImage before = leader.image();
    Throwable failure =
        catchThrowable(
            () -> {
              RaftClientReply reply = submit(clientParameters, leader, "from-a-stranger");
              if (!reply.isSuccess()) {
                throw reply.getException();
              }
            });
    assertRefusedByTransport(failure);
    assertThat(leader.image()).isEqualTo(before);
    assertThat(before.topic("from-a-stranger")).isEmpty();
  }

  /**
   * Refused by the transport, before any Raft code: the failed TLS handshake reaches the client as
   * gRPC's UNAVAILABLE, or, when the client noticed first that the connection died, as its closed
   * proxy to that server. Never a Raft answer (not leader, stale, rejected).
   */
  private static void assertRefusedByTransport(Throwable failure) {
    assertThat(failure).as("the stranger must be refused").isNotNull();
    assertThat(failure)
        .satisfiesAnyOf(
            f -> assertThat(f).hasStackTraceContaining("UNAVAILABLE"),
            f -> assertThat(f).hasStackTraceContaining("AlreadyClosedException"));
  }

  private static Parameters tls(GrpcTlsConfig config) {
    Parameters parameters = new Parameters();
    GrpcConfigKeys.TLS.setConf(parameters, config);
    return parameters;
  }

  /** One batch that creates {@code topic}, sent as a Raft client to {@code leader}, no retries. */
  private static RaftClientReply submit(
      Parameters clientParameters, RatisMetadataQuorum leader, String topic) throws Exception {
    try (RaftClient client = client(clientParameters, leader)) {
      byte[] batch =
          MetadataBatchCodec.encodeBatch(leader.image().lastOffset(), quorum.topicRecords(topic));
      return client.async().send(Message.valueOf(ByteBuffer.wrap(batch))).get(30, TimeUnit.SECONDS);
    }
  }

  /** A Raft client of the quorum that sends to {@code leader} and never retries. */
  private static RaftClient client(Parameters clientParameters, RatisMetadataQuorum leader) {
    RaftProperties properties = new RaftProperties();
    RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
    RaftClientConfigKeys.Rpc.setRequestTimeout(
        properties, TimeDuration.valueOf(5, TimeUnit.SECONDS));
    return RaftClient.newBuilder()
        .setProperties(properties)
        .setParameters(clientParameters)
        .setRaftGroup(RaftGroup.valueOf(RatisMetadataQuorum.GROUP_ID, voters()))
        .setLeaderId(RaftPeerId.valueOf(String.valueOf(leader.localBrokerId())))
        .setRetryPolicy(RetryPolicies.noRetry())
        .build();
  }

  private static List<RaftPeer> voters() {
    List<RaftPeer> peers = new ArrayList<>();
    quorum.voters.forEach(
        (id, address) -> peers.add(RatisMetadataQuorum.peer(id, address, RaftPeerRole.FOLLOWER)));
    return peers;
  }
}
