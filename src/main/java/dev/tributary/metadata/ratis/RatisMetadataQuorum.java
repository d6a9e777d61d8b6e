package dev.tributary.metadata.ratis;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.tributary.common.errors.NotControllerException;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataQuorum;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.metadata.StaleMetadataException;
import dev.tributary.metadata.ratis.MetadataBatchCodec.ApplyResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftException;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.ExitUtils;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metadata quorum of a cluster, on Apache Ratis (Kafka's KRaft idea): every broker embeds one
 * Ratis peer of a single Raft group; the leader's broker is the active controller and the Raft term
 * is the controller epoch. Voters elect and commit; <em>listeners</em> (brokers outside the voter
 * list, Ratis' {@code LISTENER} role) receive the log and replay it but never vote or lead.
 *
 * <p>Identity is derived from configuration, so it is stable across restarts: peer id = broker id
 * as a string, group id = {@code UUID.nameUUIDFromBytes("tributary-metadata")}. Storage: {@code
 * <storageDir>/<group-uuid>/} (Raft log, metadata, {@code sm/} snapshots); one process per
 * directory. gRPC on the local member's port, bound to its host only (never the wildcard address),
 * with mutual TLS when {@link RatisQuorumOptions#tls()} is set (see {@link #parameters}).
 *
 * <p>Append path: {@link #append} encodes the batch as one Raft entry ({@link MetadataBatchCodec})
 * and submits it to the local Raft division, which accepts it only while it is the ready leader;
 * the reply comes back after the entry committed and applied <em>locally</em>, so {@link #image()}
 * includes the batch when {@code append} returns. The state machine ({@link MetadataStateMachine})
 * applies a batch on every member only if the image is still at its {@code expectedLastOffset},
 * which makes a late write of a deposed controller — or a retry after a timeout — a harmless no-op.
 *
 * <p>Threads: Ratis' own (gRPC, log worker, state machine updater — listeners run on the latter)
 * plus one daemon thread per quorum, {@code tributary-quorum-events-b<id>}, that runs leadership
 * listeners. Methods are thread safe.
 */
public final class RatisMetadataQuorum implements MetadataQuorum {
  private static final Logger log = LoggerFactory.getLogger(RatisMetadataQuorum.class);

  /** The one Raft group of the metadata quorum; the same on every broker and across restarts. */
  static final RaftGroupId GROUP_ID =
      RaftGroupId.valueOf(UUID.nameUUIDFromBytes("tributary-metadata".getBytes(UTF_8)));

  private final int localBrokerId;
  private final RaftPeerId localPeerId;
  private final RaftServer server;
  private final RaftServer.Division division;
  private final MetadataStateMachine stateMachine;
  private final ExecutorService events;
  private final List<Runnable> leadershipListeners;
  private final long appendTimeoutMs;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();
  private final AtomicBoolean closed = new AtomicBoolean();

  private RatisMetadataQuorum(
      int localBrokerId,
      RaftServer server,
      MetadataStateMachine stateMachine,
      ExecutorService events,
      List<Runnable> leadershipListeners,
      long appendTimeoutMs)
      throws IOException {
    this.localBrokerId = localBrokerId;
    this.localPeerId = server.getId();
    this.server = server;
    this.division = server.getDivision(GROUP_ID);
    this.stateMachine = stateMachine;
    this.events = events;
    this.leadershipListeners = leadershipListeners;
    this.appendTimeoutMs = appendTimeoutMs;
  }

  /**
   * {@link #start(int, Map, Map, Path, RatisQuorumOptions)} with no listeners and default options.
   */
  public static RatisMetadataQuorum start(
      int localBrokerId, Map<Integer, InetSocketAddress> voters, Path storageDir) {
    return start(localBrokerId, voters, Map.of(), storageDir, RatisQuorumOptions.DEFAULTS);
  }

  /**
   * Starts this broker's Ratis peer and returns once it serves (an election may still be under way:
   * see {@link #activeControllerId()}). The image is recovered from the latest snapshot plus the
   * Raft log in {@code storageDir}.
   *
   * @param localBrokerId this broker: a key of {@code voters} or of {@code listeners}
   * @param voters broker id → Raft address of every voter (e.g. {@link QuorumVoters#parse});
   *     identical on every broker
   * @param listeners broker id → Raft address of every non-voting member; identical on every
   *     broker; may be empty
   * @param storageDir this broker's quorum directory (created if absent)
   * @throws IllegalArgumentException if the membership is inconsistent or {@code localBrokerId} is
   *     in neither map
   * @throws UncheckedIOException if storage cannot be opened or the port cannot be bound (the
   *     message names the port; Ratis' own {@code System.exit(1)} for the latter is disabled:
   *     {@code ExitUtils.disableSystemExit()})
   */
  public static RatisMetadataQuorum start(
      int localBrokerId,
      Map<Integer, InetSocketAddress> voters,
      Map<Integer, InetSocketAddress> listeners,
      Path storageDir,
      RatisQuorumOptions options) {
    if (voters.isEmpty()) {
      throw new IllegalArgumentException("the metadata quorum needs at least one voter");
    }
    for (Integer id : listeners.keySet()) {
      if (voters.containsKey(id)) {
        throw new IllegalArgumentException(
            "broker " + id + " is listed both as a quorum voter and as a listener");
      }
    }
    InetSocketAddress localAddress =
        voters.containsKey(localBrokerId)
            ? voters.get(localBrokerId)
            : listeners.get(localBrokerId);
    if (localAddress == null) {
      throw new IllegalArgumentException(
          "broker "
              + localBrokerId
              + " is not a voter or listener of the metadata quorum; voters: "
              + voters.keySet()
              + ", listeners: "
              + listeners.keySet());
    }
    List<RaftPeer> peers = new ArrayList<>();
    voters.forEach((id, address) -> peers.add(peer(id, address, RaftPeerRole.FOLLOWER)));
    listeners.forEach((id, address) -> peers.add(peer(id, address, RaftPeerRole.LISTENER)));
    RaftGroup group = RaftGroup.valueOf(GROUP_ID, peers);

    List<Runnable> leadershipListeners = new CopyOnWriteArrayList<>();
    ExecutorService events =
        Executors.newSingleThreadExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "tributary-quorum-events-b" + localBrokerId);
              thread.setDaemon(true);
              return thread;
            });
    MetadataStateMachine stateMachine =
        new MetadataStateMachine(
            () -> events.execute(() -> runLeadershipListeners(leadershipListeners)));
    // Make Ratis throw, not System.exit(1), when its gRPC port cannot be bound
    // (TributaryApplication does this too,
    // first thing; here for every other caller). Idempotent.
    ExitUtils.disableSystemExit();
    RaftServer server = null;
    try {
      server =
          RaftServer.newBuilder()
              .setServerId(RaftPeerId.valueOf(String.valueOf(localBrokerId)))
              .setGroup(group)
              .setStateMachine(stateMachine)
              .setProperties(properties(localAddress, storageDir, options))
              .setParameters(parameters(options))
              .setOption(RaftStorage.StartupOption.RECOVER)
              .build();
      server.start();
      RatisMetadataQuorum quorum =
          new RatisMetadataQuorum(
              localBrokerId,
              server,
              stateMachine,
              events,
              leadershipListeners,
              options.appendTimeout().toMillis());
      if (listeners.containsKey(localBrokerId)) {
        List<RaftPeer> voterPeers =
            peers.stream().filter(p -> p.getStartupRole() == RaftPeerRole.FOLLOWER).toList();
        QuorumListeners.startJoining(
            RaftGroup.valueOf(GROUP_ID, voterPeers),
            peer(localBrokerId, localAddress, RaftPeerRole.LISTENER),
            parameters(options),
            quorum.closed::get);
      }
      return quorum;
    } catch (IOException | RuntimeException e) {
      // A failed start leaves non-daemon Ratis threads behind unless the server is closed.
      closeQuietly(server);
      events.shutdownNow();
      BindException bind = bindFailure(e);
      if (bind != null) {
        // Ratis reports it as ExitUtils.terminate(1, "Failed to start Grpc server"): with exits
        // disabled, an
        // ExitException thrown on this thread.
        throw new UncheckedIOException(
            "cannot bind the metadata quorum (Raft) port "
                + localAddress.getHostString()
                + ":"
                + localAddress.getPort()
                + " of broker "
                + localBrokerId
                + ": "
                + bind.getMessage(),
            bind);
      }
      if (e instanceof IOException io) {
        throw new UncheckedIOException(
            "cannot start metadata quorum member "
                + localBrokerId
                + " at "
                + localAddress
                + " in "
                + storageDir,
            io);
      }
      throw (RuntimeException) e;
    }
  }

  static final long ELECTION_TIMEOUT_MIN_MS = 500;
  static final long ELECTION_TIMEOUT_MAX_MS = 1_000;

  static RaftPeer peer(int brokerId, InetSocketAddress address, RaftPeerRole role) {
    return RaftPeer.newBuilder()
        .setId(String.valueOf(brokerId))
        .setAddress(address.getHostString() + ":" + address.getPort())
        .setStartupRole(role)
        .build();
  }

  static final String APPENDER_RETRY_POLICY = "1ms,10, 100ms,20, 250ms,2000000000";

  /**
   * With TLS, one {@link GrpcTlsConfig} for every gRPC role: Ratis serves the server (peer), client
   * and admin protocols on the one port here (no separate admin or client port is configured), and
   * uses the same configuration for the connections it opens to peers. Mutual: the port requires a
   * client certificate that the cluster CA signed, and every connection verifies the peer's.
   */
  static Parameters parameters(RatisQuorumOptions options) {
    Parameters parameters = new Parameters();
    options
        .tls()
        .ifPresent(
            tls ->
                GrpcConfigKeys.TLS.setConf(
                    parameters, new GrpcTlsConfig(tls.keyManager(), tls.trustManager(), true)));
    return parameters;
  }

  private static RaftProperties properties(
      InetSocketAddress localAddress, Path storageDir, RatisQuorumOptions options) {
    RaftProperties properties = new RaftProperties();
    RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
    // Bind the host named in the voter list, not every interface: Ratis binds the wildcard address
    // when no host is set. Admin and client ports stay unset (-1), so they share this one socket.
    GrpcConfigKeys.Server.setHost(properties, localAddress.getHostString());
    GrpcConfigKeys.Server.setPort(properties, localAddress.getPort());
    RaftServerConfigKeys.setStorageDir(properties, List.of(storageDir.toFile()));
    // Election timeouts of 0.5-1 s (Ratis' default is 150-300 ms; Kafka's
    // controller.quorum.election.timeout.ms is
    // 1 s): a few hundred ms slower to fail over, but a loaded 2-core machine running three brokers
    // no longer
    // holds spurious elections whenever a JVM stalls for a GC or the CPU is busy. See
    // docs/adr/0005.
    RaftServerConfigKeys.Rpc.setTimeoutMin(
        properties, TimeDuration.valueOf(ELECTION_TIMEOUT_MIN_MS, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(
        properties, TimeDuration.valueOf(ELECTION_TIMEOUT_MAX_MS, TimeUnit.MILLISECONDS));

    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(
        properties, options.snapshotThresholdEntries());
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(properties, options.snapshotRetentionFiles());
    // Ratis closes a peer whose JVM was paused longer than this (default 60 s). A broker frozen
    // with SIGSTOP, or
    // a VM suspended, must come back as a follower that catches up and learns it was replaced,
    // never as a zombie
    // whose quorum peer is gone while it still believes it leads its partitions.
    RaftServerConfigKeys.setCloseThreshold(properties, TimeDuration.valueOf(365, TimeUnit.DAYS));
    // How the leader retries a follower it cannot reach. Ratis' default ("1ms,10, 1s,20, 5s,1000")
    // sleeps 5 s
    // between attempts once a follower has been down for ~20 s, so a restarted broker waited 5-15 s
    // (a few
    // INCONSISTENCY rounds, each a 5 s sleep) to hear from the leader and learn who the controller
    // is. A refused
    // connection to a dead peer is cheap: keep retrying every 250 ms, for as long as it takes.
    RaftServerConfigKeys.Log.Appender.setRetryPolicy(properties, APPENDER_RETRY_POLICY);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(properties, true);
    RaftServerConfigKeys.Log.setPurgeGap(
        properties, (int) Math.min(options.snapshotThresholdEntries(), 1024));
    SizeInBytes segmentSize = SizeInBytes.valueOf(options.logSegmentSizeMaxBytes());
    RaftServerConfigKeys.Log.setSegmentSizeMax(properties, segmentSize);
    if (options.logSegmentSizeMaxBytes()
        < RaftServerConfigKeys.Log.preallocatedSize(properties).getSize()) {
      RaftServerConfigKeys.Log.setPreallocatedSize(properties, segmentSize);
    }
    return properties;
  }

  /**
   * Commits {@code records} as one batch if the image is still at {@code expectedLastOffset},
   * waiting (up to the append timeout) until it is committed by a majority and applied here.
   *
   * @throws NotControllerException if this member is not the ready leader (the message names the
   *     leader if known)
   * @throws StaleMetadataException if the image had moved on; nothing changed anywhere
   * @throws IllegalStateException if a record failed to replay; the batch changed nothing anywhere
   * @throws MetadataQuorumTimeoutException if it did not commit in time; its fate is unknown
   */
  @Override
  public MetadataImage append(long expectedLastOffset, List<MetadataRecord> records) {
    ensureOpen();
    if (!division.getInfo().isLeader()) {
      throw notController();
    }
    RaftClientRequest request =
        RaftClientRequest.newBuilder()
            .setClientId(clientId)
            .setServerId(localPeerId)
            .setGroupId(GROUP_ID)
            .setCallId(callIds.incrementAndGet())
            .setMessage(
                Message.valueOf(
                    ByteBuffer.wrap(MetadataBatchCodec.encodeBatch(expectedLastOffset, records))))
            .setType(RaftClientRequest.writeRequestType())
            .build();
    RaftClientReply reply;
    try {
      reply = server.submitClientRequestAsync(request).get(appendTimeoutMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new MetadataQuorumTimeoutException(
          "metadata batch (expected last offset "
              + expectedLastOffset
              + ") did not commit within "
              + appendTimeoutMs
              + " ms; it may still commit");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MetadataQuorumTimeoutException(
          "interrupted while waiting for a metadata batch to commit");
    } catch (IOException | ExecutionException e) {
      throw translate(e instanceof ExecutionException ? e.getCause() : e);
    }
    if (!reply.isSuccess()) {
      throw translate(reply.getException());
    }
    ApplyResult result =
        MetadataBatchCodec.decodeResult(reply.getMessage().getContent().asReadOnlyByteBuffer());
    return switch (result.outcome()) {
      case APPLIED -> stateMachine.image();
      case STALE -> throw new StaleMetadataException(expectedLastOffset, result.lastOffset());
      case REJECTED ->
          throw new IllegalStateException("metadata batch rejected: " + result.detail());
    };
  }

  private RuntimeException translate(Throwable failure) {
    if (failure instanceof NotLeaderException || failure instanceof LeaderNotReadyException) {
      return notController();
    }
    if (failure instanceof RaftException || failure instanceof IOException) {
      return new UncheckedIOException(
          "metadata batch failed in the quorum: " + failure,
          failure instanceof IOException io ? io : new IOException(failure));
    }
    return failure instanceof RuntimeException runtime
        ? runtime
        : new IllegalStateException(failure);
  }

  private NotControllerException notController() {
    OptionalInt leader = activeControllerId();
    String where =
        leader.isPresent() && leader.getAsInt() != localBrokerId
            ? "the active controller is broker " + leader.getAsInt()
            : leader.isPresent()
                ? "it is becoming the active controller, or has just stopped being it"
                : "no active controller is known yet";
    return new NotControllerException(
        "broker " + localBrokerId + " is not the active controller; " + where);
  }

  /**
   * Asks this member's Raft server (the leader; elsewhere nothing happens) to drop {@code brokerId}
   * from the listeners of the configuration, keeping every voter and other listener
   * (compare-and-set against the configuration read here, so a concurrent change is not undone).
   * Asynchronous; a failure is logged: the listener then keeps receiving the log, which is
   * harmless.
   */
  @Override
  public void removeListener(int brokerId) {
    if (closed.get() || !division.getInfo().isLeader()) {
      return;
    }
    QuorumListeners.remove(
        server,
        division.getRaftConf(),
        brokerId,
        new QuorumListeners.Caller(clientId, localPeerId, callIds.incrementAndGet()));
  }

  @Override
  public MetadataImage image() {
    return stateMachine.image();
  }

  /**
   * Calls {@code listener} with the current image now and, later, with every new image in commit
   * order, one call at a time on the Ratis apply thread. It must return quickly and must not call
   * {@link #append} (that would wait for the very thread it blocks); hand longer work to another
   * thread. A listener that throws is logged and skipped. After a snapshot install (a follower that
   * fell far behind) the next image may skip many offsets.
   */
  @Override
  public void subscribe(Consumer<MetadataImage> listener) {
    stateMachine.subscribe(listener);
  }

  /**
   * Calls {@code listener} (on this quorum's events thread, one at a time) whenever the leader
   * changes or this member becomes a ready leader; the listener then reads {@link
   * #isActiveController()} and {@link #controllerEpoch()}. Notifications may be spurious; they are
   * not lost.
   */
  public void addLeadershipListener(Runnable listener) {
    leadershipListeners.add(listener);
  }

  private static void runLeadershipListeners(List<Runnable> listeners) {
    for (Runnable listener : listeners) {
      try {
        listener.run();
      } catch (RuntimeException e) {
        log.error("Leadership listener {} failed", listener, e);
      }
    }
  }

  @Override
  public OptionalInt activeControllerId() {
    RaftPeerId leader = division.getInfo().getLeaderId();
    return leader == null
        ? OptionalInt.empty()
        : OptionalInt.of(Integer.parseInt(leader.toString()));
  }

  /**
   * True while this member is open, the Raft leader, and ready: it has applied its first entry of
   * the term, so its image holds everything committed before it took over.
   */
  @Override
  public boolean isActiveController() {
    DivisionInfo info = division.getInfo();
    return !closed.get() && info.isLeader() && info.isLeaderReady();
  }

  @Override
  public long controllerEpoch() {
    return division.getInfo().getCurrentTerm();
  }

  public int localBrokerId() {
    return localBrokerId;
  }

  /** The Raft division, for tests that check log purging and indexes. */
  RaftServer.Division division() {
    return division;
  }

  /**
   * One line for logs, tests and the dashboard, e.g. {@code b2 LEADER e7 leader=2 lastOffset=120
   * applied=131}.
   */
  public String statusLine() {
    DivisionInfo info = division.getInfo();
    return "b"
        + localBrokerId
        + " "
        + info.getCurrentRole()
        + " e"
        + info.getCurrentTerm()
        + " leader="
        + (info.getLeaderId() == null ? "-" : info.getLeaderId())
        + " lastOffset="
        + image().lastOffset()
        + " applied="
        + info.getLastAppliedIndex();
  }

  @Override
  public String toString() {
    return statusLine();
  }

  private void ensureOpen() {
    if (closed.get()) {
      throw new IllegalStateException("metadata quorum member " + localBrokerId + " is closed");
    }
  }

  /** Stops the Ratis peer (its storage stays for the next start). Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close metadata quorum member " + localBrokerId, e);
    } finally {
      events.shutdownNow();
    }
  }

  /**
   * The {@link BindException} among the causes of a failed start, if any. With Netty's epoll
   * transport there is none: gRPC's {@code IOException("Failed to bind to address ...")} wraps a
   * {@code NativeIoException("bind(..) failed ...: Address already in use")}, so those are
   * recognised by their messages.
   */
  private static BindException bindFailure(Throwable failure) {
    BindException found = null;
    for (Throwable t = failure; t != null; t = t.getCause()) { // the innermost wins: it says why
      if (t instanceof BindException bind) {
        found = bind;
      } else if (t.getMessage() != null
          && (t.getMessage().contains("Address already in use")
              || t.getMessage().startsWith("Failed to bind"))) {
        found = new BindException(t.getMessage());
        found.initCause(t);
      }
    }
    return found;
  }

  private static void closeQuietly(RaftServer server) {
    if (server == null) {
      return;
    }
    try {
      server.close();
    } catch (IOException | RuntimeException e) {
      log.warn("Cannot close a metadata quorum server that failed to start", e);
    }
  }
}
