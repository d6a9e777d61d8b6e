package dev.tributary.metadata.ratis;

import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.metadata.ratis.MetadataBatchCodec.ApplyResult;
import dev.tributary.metadata.ratis.MetadataBatchCodec.Batch;
import dev.tributary.metadata.ratis.MetadataBatchCodec.Outcome;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis state machine of the metadata quorum: replays committed metadata batches into a {@link
 * MetadataImage}.
 *
 * <p>Apply rule, deterministic on every member (see {@link MetadataBatchCodec} for the entry
 * format): a batch applies only if the image's {@code lastOffset == expectedLastOffset}; its
 * records replay at {@code lastOffset+1, +2, ...}. Otherwise it is a no-op ({@link Outcome#STALE}).
 * If any record fails to decode or replay, the whole batch is a no-op ({@link Outcome#REJECTED}):
 * replay is a pure function of (image, records), so every member reaches the same verdict and
 * nobody wedges.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>{@code image} equals the replay of the latest snapshot plus every applied entry after it;
 *       {@code lastAppliedTermIndex} is the Raft position of the last entry reflected in it. Both
 *       change together under {@code lock}, so a snapshot never pairs an image with the wrong
 *       index.
 *   <li>{@code image.lastOffset} counts applied <em>records</em>, not Raft entries (config and
 *       leader no-op entries and stale or rejected batches advance the Raft index only).
 * </ul>
 *
 * <p>Snapshots: one file per snapshot, {@code snapshot.<term>_<index>} plus its {@code .md5}, in
 * the Ratis state machine directory ({@link SimpleStateMachineStorage}); written to a temp file,
 * fsynced, then renamed. Ratis triggers them, purges the log up to them and keeps the configured
 * number of files. A follower that is sent a snapshot by the leader goes through {@link #pause()}
 * (required by Ratis before it swaps the directory) and {@link #reinitialize()}, which loads the
 * installed snapshot.
 *
 * <p>Concurrency: Ratis applies entries on one thread. Listeners run on that thread, one at a time,
 * in commit order, under {@code lock}; {@link #subscribe} takes the same lock so a new listener
 * sees each image exactly once.
 */
final class MetadataStateMachine extends BaseStateMachine {
  private static final Logger log = LoggerFactory.getLogger(MetadataStateMachine.class);

  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private final Object lock = new Object();
  private final List<Consumer<MetadataImage>> listeners = new CopyOnWriteArrayList<>();
  private final Runnable onLeadershipEvent;

  /** Invariant: see the class doc; written only under {@code lock}. */
  private volatile MetadataImage image = MetadataImage.EMPTY;

  /**
   * {@code onLeadershipEvent} runs on a Ratis thread, possibly under its locks: it must only hand
   * off.
   */
  MetadataStateMachine(Runnable onLeadershipEvent) {
    this.onLeadershipEvent = onLeadershipEvent;
  }

  MetadataImage image() {
    return image;
  }

  void subscribe(Consumer<MetadataImage> listener) {
    synchronized (lock) {
      listeners.add(listener);
      listener.accept(image);
    }
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
      throws IOException {
    super.initialize(server, groupId, raftStorage);
    storage.init(raftStorage);
    getLifeCycle().startAndTransition(() -> loadSnapshot(storage.loadLatestSnapshot()));
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    ApplyResult result;
    synchronized (lock) {
      MetadataImage before = image;
      result =
          apply(
              before,
              entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer(),
              entry.getIndex());
      updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
      if (image != before) {
        publish(image);
      }
    }
    return CompletableFuture.completedFuture(
        Message.valueOf(ByteBuffer.wrap(MetadataBatchCodec.encodeResult(result))));
  }

  /** Applies one entry to {@code before}; sets {@link #image} only if the whole batch replays. */
  private ApplyResult apply(MetadataImage before, ByteBuffer data, long raftIndex) {
    Batch batch;
    try {
      batch = MetadataBatchCodec.decodeBatch(data);
    } catch (RuntimeException e) {
      log.warn("Rejected undecodable metadata entry at Raft index {}: {}", raftIndex, e.toString());
      return new ApplyResult(
          Outcome.REJECTED, before.lastOffset(), "undecodable metadata batch: " + e.getMessage());
    }
    if (before.lastOffset() != batch.expectedLastOffset()) {
      return new ApplyResult(Outcome.STALE, before.lastOffset(), "");
    }
    MetadataImage next = before;
    long offset = before.lastOffset();
    for (MetadataRecord record : batch.records()) {
      try {
        next = next.replay(++offset, record);
      } catch (RuntimeException e) {
        // Deterministic: replay depends only on the image and the records, so every member rejects
        // it too.
        log.warn(
            "Rejected metadata batch at Raft index {}: record at offset {} failed: {}",
            raftIndex,
            offset,
            e.getMessage());
        return new ApplyResult(
            Outcome.REJECTED, before.lastOffset(), String.valueOf(e.getMessage()));
      }
    }
    image = next;
    return new ApplyResult(Outcome.APPLIED, next.lastOffset(), "");
  }

  private void publish(MetadataImage next) {
    for (Consumer<MetadataImage> listener : listeners) {
      try {
        listener.accept(next);
      } catch (RuntimeException e) {
        log.error(
            "Metadata listener {} failed on the image at offset {}",
            listener,
            next.lastOffset(),
            e);
      }
    }
  }

  @Override
  public void notifyTermIndexUpdated(long term, long index) {
    synchronized (
        lock) { // a config or leader no-op entry: the image is unchanged but the Raft position
      // moves
      super.notifyTermIndexUpdated(term, index);
    }
  }

  @Override
  public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
    onLeadershipEvent.run();
  }

  @Override
  public void notifyLeaderReady() {
    onLeadershipEvent.run();
  }

  @Override
  public long takeSnapshot() throws IOException {
    MetadataImage snapshotImage;
    TermIndex applied;
    synchronized (lock) {
      snapshotImage = image;
      applied = getLastAppliedTermIndex();
    }
    if (applied == null || applied.getIndex() < 0) {
      return RaftLog.INVALID_LOG_INDEX;
    }
    SingleFileSnapshotInfo latest = storage.getLatestSnapshot();
    if (latest != null && latest.getIndex() >= applied.getIndex()) {
      return latest.getIndex();
    }
    File file = storage.getSnapshotFile(applied.getTerm(), applied.getIndex());
    Path path = file.toPath();
    Path tmp = path.resolveSibling(file.getName() + ".tmp");
    try (FileChannel channel =
            FileChannel.open(
                tmp,
                StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
        DataOutputStream out =
            new DataOutputStream(
                new BufferedOutputStream(java.nio.channels.Channels.newOutputStream(channel)))) {
      MetadataBatchCodec.writeSnapshot(out, snapshotImage);
      out.flush();
      channel.force(true);
    }
    MD5Hash md5 = MD5FileUtil.computeMd5ForFile(tmp.toFile());
    MD5FileUtil.saveMD5File(
        file, md5); // before the rename: a visible snapshot file always has its digest
    Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE);
    fsyncDirectory(path.getParent());
    storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(path, md5), applied));
    log.info(
        "Took metadata snapshot {} at lastOffset {}", file.getName(), snapshotImage.lastOffset());
    return applied.getIndex();
  }

  @Override
  public void pause() {
    synchronized (lock) {
      LifeCycle lifeCycle = getLifeCycle();
      if (lifeCycle.getCurrentState() == LifeCycle.State.RUNNING) {
        lifeCycle.transition(LifeCycle.State.PAUSING);
        lifeCycle.transition(LifeCycle.State.PAUSED);
      }
    }
  }

  /**
   * Called by Ratis after it installed a snapshot from the leader (with this machine paused): load
   * it.
   */
  @Override
  public void reinitialize() throws IOException {
    synchronized (lock) {
      MetadataImage before = image;
      loadSnapshot(storage.loadLatestSnapshot());
      if (image != before) {
        publish(image);
      }
      LifeCycle lifeCycle = getLifeCycle();
      if (lifeCycle.getCurrentState() == LifeCycle.State.PAUSED) {
        lifeCycle.transition(LifeCycle.State.STARTING);
        lifeCycle.transition(LifeCycle.State.RUNNING);
      }
    }
  }

  /** Replaces the image with {@code snapshot} if it is newer than what was applied. */
  private void loadSnapshot(SingleFileSnapshotInfo snapshot) throws IOException {
    if (snapshot == null) {
      return;
    }
    TermIndex applied = getLastAppliedTermIndex();
    if (applied != null && snapshot.getIndex() <= applied.getIndex()) {
      return;
    }
    Path path = snapshot.getFile().getPath();
    MD5Hash md5 = snapshot.getFile().getFileDigest();
    if (md5 != null) {
      MD5FileUtil.verifySavedMD5(path.toFile(), md5);
    }
    MetadataImage loaded;
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(path)))) {
      loaded = MetadataBatchCodec.readSnapshot(in);
    } catch (RuntimeException e) {
      throw new IOException("cannot read metadata snapshot " + path, e);
    }
    synchronized (lock) {
      image = loaded;
      setLastAppliedTermIndex(snapshot.getTermIndex());
    }
    log.info(
        "Loaded metadata snapshot {} at lastOffset {}", path.getFileName(), loaded.lastOffset());
  }

  private static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
      directory.force(true);
    }
  }
}
