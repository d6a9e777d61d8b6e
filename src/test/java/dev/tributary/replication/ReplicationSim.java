package dev.tributary.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.ManualClock;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.StaleBrokerEpochException;
import dev.tributary.log.DiskFaults;
import dev.tributary.log.LogCleaner;
import dev.tributary.log.LogConfig;
import dev.tributary.log.LogDirFailureChannel;
import dev.tributary.log.LogManager;
import dev.tributary.log.PartitionLog;
import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.metadata.BrokerHeartbeatManager;
import dev.tributary.metadata.ClusterControl;
import dev.tributary.metadata.IsrControl;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicControl;
import dev.tributary.metadata.TopicImage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The replication simulation's cluster ({@link ReplicationSimulationTest}, {@link
 * StaleIsrExpansionTest}): brokers with real logs, replica managers and thread-less fetchers, a
 * controller driven by hand, a manual clock, and the invariant checks run after every event.
 */
final class ReplicationSim {
  static final long LAG_MS = 1_000;
  static final long SESSION_MS = 2_000;
  static final int BROKERS = 4;
  static final int REPLICATION_FACTOR = 3;

  private ReplicationSim() {}

  /** One simulated cluster. */
  static final class Sim {
    final Random random;
    final Path dir;
    final ManualClock clock = new ManualClock();
    final ClusterControl cluster = new ClusterControl(new BrokerHeartbeatManager(SESSION_MS));
    final TopicControl topics;
    MetadataImage image = MetadataImage.EMPTY;
    final Map<Integer, SimBroker> brokers = new TreeMap<>();
    final Deque<PendingAlter> alters = new ArrayDeque<>();
    final List<String> history = new ArrayList<>();
    final TopicPartition tp = new TopicPartition("t", 0);
    final SimReassignments reassignments = new SimReassignments(this, REPLICATION_FACTOR);

    /** Acknowledged acks=all produces: offset → value. */
    final Map<Long, String> acked = new TreeMap<>();

    final List<InFlight> inFlight = new ArrayList<>();

    /** Highest HW seen per (broker, leader epoch) while leading. */
    final Map<String, Long> highWatermarks = new HashMap<>();

    int nextValue;
    int isrChanges;
    int crashes;
    int offlineDirectories;
    int wipes;
    int generation;
    boolean unclean;

    record PendingAlter(AlterPartitionRequest request, CompletableFuture<Void> future) {}

    record InFlight(String value, CompletableFuture<ProducePartitionResult> future) {}

    Sim(long seed, Path dir) {
      this.random = new Random(seed);
      this.dir = dir;
      this.topics = new TopicControl(new Random(seed));
    }

    void run(int events) {
      setUp();
      for (int i = 0; i < events; i++) {
        history.add("t=" + clock.milliseconds() + " " + step());
        if (Boolean.getBoolean("tributary.sim.trace")) {
          System.out.println(history.get(history.size() - 1));
        }
        if (history.size() > 40) {
          history.remove(0);
        }
        checkInvariants();
      }
      heal();
    }

    /** Starts the brokers and creates topic t (one partition, rf 3) on them. */
    void setUp() {
      for (int id = 1; id <= BROKERS; id++) {
        start(id);
      }
      Map<String, String> configs =
          unclean
              ? Map.of(
                  LogConfig.MIN_IN_SYNC_REPLICAS,
                  "1",
                  LogConfig.UNCLEAN_LEADER_ELECTION_ENABLE,
                  "true",
                  LogConfig.SEGMENT_BYTES,
                  "2048")
              : Map.of(LogConfig.MIN_IN_SYNC_REPLICAS, "2", LogConfig.SEGMENT_BYTES, "2048");
      commit(
          topics.createTopic(
              image, "t", 1, REPLICATION_FACTOR, configs, List.copyOf(brokers.keySet())));
      deliverAll();
    }

    /** One random event; returns its description. */
    String step() {
      int dice = random.nextInt(1012);
      if (dice >= 1000) {
        return reassignments.step();
      } else if (dice < 250) {
        return produce();
      } else if (dice < 600) {
        return fetchRound();
      } else if (dice < 750) {
        return deliver(randomAlive());
      } else if (dice < 830) {
        return processAlter();
      } else if (dice < 900) {
        long ms = 1 + random.nextInt(400);
        clock.advance(ms);
        return "advance " + ms + " ms";
      } else if (dice < 960) {
        return heartbeats();
      } else if (dice < 975) {
        return crash();
      } else if (dice < 990) {
        return restart();
      } else if (dice < 995) {
        return diskFails();
      }
      commit(ClusterControl.preferredLeaderChanges(image));
      return "preferred leader election";
    }

    /** A live broker's disk fills up or starts failing fsyncs; its next write finds out. */
    String diskFails() {
      SimBroker broker = randomAlive();
      if (broker == null) {
        return "disk: nobody alive";
      }
      if (random.nextBoolean()) {
        broker.disk.diskFullAfter(random.nextInt(200));
        return "b" + broker.id + "'s disk fills up";
      }
      broker.disk.fsyncFails();
      return "b" + broker.id + "'s disk fails fsyncs";
    }

    /** What the broker's failure-channel listener starts at once: the fetchers stop. */
    void noticeOfflineDirectories() {
      for (SimBroker broker : brokers.values()) {
        if (broker.alive && broker.logs.isOffline() && !broker.offlineNoticed) {
          broker.offlineNoticed = true;
          broker.replicas.onLogDirFailure();
        }
      }
    }

    String produce() {
      PartitionImage p = partition();
      SimBroker leader = brokers.get(p.leader());
      if (leader == null || !leader.alive) {
        return "produce: no live leader (image says " + p.leader() + ")";
      }
      String value = "v" + nextValue++;
      Acks acks = random.nextInt(4) == 0 ? Acks.LEADER : Acks.ALL;
      try {
        CompletableFuture<ProducePartitionResult> future =
            ReplicaManagerCalls.append(leader.replicas, tp, TestBatches.batch(value), acks, 3_000);
        if (acks == Acks.ALL) {
          inFlight.add(new InFlight(value, future));
        }
        return "produce " + value + " acks=" + acks + " to b" + leader.id;
      } catch (ApiException e) {
        return "produce "
            + value
            + " refused by b"
            + leader.id
            + ": "
            + e.getClass().getSimpleName();
      }
    }

    String fetchRound() {
      // Among the brokers that host the partition: the spare one would only waste the event.
      List<SimBroker> hosts =
          brokers.values().stream()
              .filter(b -> b.alive && b.replicas.partition(tp).isPresent())
              .toList();
      if (hosts.isEmpty()) {
        return "fetch: no live broker hosts " + tp;
      }
      SimBroker follower = hosts.get(random.nextInt(hosts.size()));
      List<Integer> leaders = new ArrayList<>(follower.fetchers.leaders());
      if (leaders.isEmpty()) {
        return "fetch: b" + follower.id + " follows nobody";
      }
      int leaderId = leaders.get(random.nextInt(leaders.size()));
      follower.fetchers.fetcher(leaderId).ifPresent(ReplicaFetcher::doWork);
      return "b" + follower.id + " fetches from b" + leaderId + ": " + follower.status();
    }

    String deliver(SimBroker broker) {
      if (broker == null) {
        return "deliver: nobody alive";
      }
      broker.replicas.onMetadataUpdate(image);
      broker.applied = image;
      return "b%d applies metadata @%d: %s"
          .formatted(broker.id, image.lastOffset(), broker.status());
    }

    void deliverAll() {
      brokers.values().stream().filter(b -> b.alive).forEach(this::deliver);
    }

    String processAlter() {
      PendingAlter alter = alters.poll();
      if (alter == null) {
        return "controller: no ISR change pending";
      }
      AlterPartitionRequest r = alter.request;
      try {
        commit(
            IsrControl.alterPartition(
                image,
                Uuid.parse(r.topicId()),
                r.topicPartition().partition(),
                r.leaderId(),
                r.leaderEpoch(),
                r.partitionEpoch(),
                r.newIsr(),
                r.brokerEpochs()));
        alter.future.complete(null);
        isrChanges++;
        return "controller commits ISR " + r.newIsr() + " from b" + r.leaderId();
      } catch (ApiException e) {
        alter.future.completeExceptionally(e);
        return "controller refuses ISR "
            + r.newIsr()
            + " from b"
            + r.leaderId()
            + ": "
            + e.getClass().getSimpleName();
      }
    }

    String heartbeats() {
      StringBuilder done = new StringBuilder("heartbeats:");
      for (SimBroker broker : brokers.values()) {
        if (broker.alive && broker.registered) {
          try {
            ClusterControl.HeartbeatResult result =
                cluster.heartbeat(
                    image,
                    broker.id,
                    broker.brokerEpoch,
                    broker.appliedOffset(),
                    broker.logs.isOffline(),
                    clock.milliseconds());
            commit(result.records());
            if (broker.logs.isOffline()) {
              if (!broker.offlineReported) {
                offlineDirectories++;
              }
              broker.offlineReported = true;
              assertThat(result.fenced()).as("b%d with its directory offline", broker.id).isTrue();
            }
            done.append(" b").append(broker.id);
          } catch (StaleBrokerEpochException e) {
            done.append(" b").append(broker.id).append("(stale)");
          }
        }
      }
      List<MetadataRecord> fenced = cluster.fenceStaleBrokers(image, clock.milliseconds());
      commit(fenced);
      return done + (fenced.isEmpty() ? "" : "; fenced stale brokers");
    }

    String crash() {
      long alive = brokers.values().stream().filter(b -> b.alive).count();
      if (alive <= 1) {
        return "crash: keeps the last broker";
      }
      SimBroker victim = randomAlive();
      victim.crash();
      crashes++;
      return "crash b" + victim.id;
    }

    String restart() {
      List<SimBroker> dead =
          brokers.values().stream().filter(b -> !b.alive || b.logs.isOffline()).toList();
      if (dead.isEmpty()) {
        return "restart: nobody is down";
      }
      SimBroker broker = dead.get(random.nextInt(dead.size()));
      broker.crash(); // an offline one is stopped first; its disk is fine again
      // Now and then its volume was replaced: it comes back empty (KIP-903's case), unless it is
      // the partition's last in-sync replica, whose loss no replication protocol survives.
      boolean wipe = random.nextInt(3) == 0 && !partition().isr().equals(List.of(broker.id));
      if (wipe) {
        wipe(broker.id);
      }
      start(broker.id);
      return (wipe ? "restart b%d with an empty disk" : "restart b%d").formatted(broker.id);
    }

    /** Deletes stopped broker {@code id}'s log directory, as a replaced disk would be. */
    void wipe(int id) {
      if (brokers.get(id).alive) {
        throw new IllegalStateException("wipe b" + id + " while it runs");
      }
      wipes++;
      try (var paths = java.nio.file.Files.walk(dir.resolve("b" + id))) {
        for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
          java.nio.file.Files.delete(path);
        }
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    void start(int id) {
      SimBroker broker = new SimBroker(id);
      brokers.put(id, broker);
      commit(
          cluster.register(
              image,
              id,
              new Uuid(id, ++generation),
              List.of(AdvertisedListener.http("localhost", 9000 + id)),
              clock.milliseconds()));
      broker.brokerEpoch = image.broker(id).orElseThrow().brokerEpoch();
      broker.registered = true;
      deliver(broker);
      commit(
          cluster
              .heartbeat(image, id, broker.brokerEpoch, image.lastOffset(), clock.milliseconds())
              .records());
    }

    void commit(List<MetadataRecord> records) {
      for (MetadataRecord record : records) {
        PartitionImage before = partitionOrNull();
        image = image.replay(image.lastOffset() + 1, record);
        PartitionImage after = partitionOrNull();
        if (before != null && after != null && !before.equals(after)) {
          reassignments.onCommitted(before, after);
        }
      }
    }

    PartitionImage partition() {
      return image.topic("t").map(t -> t.partitions().get(0)).orElseThrow();
    }

    private PartitionImage partitionOrNull() {
      return image.topic("t").map(t -> t.partitions().get(0)).orElse(null);
    }

    SimBroker randomAlive() {
      List<SimBroker> alive = brokers.values().stream().filter(b -> b.alive).toList();
      return alive.isEmpty() ? null : alive.get(random.nextInt(alive.size()));
    }

    // ---------------------------------------------------------------------------------------
    // invariants

    void checkInvariants() {
      noticeOfflineDirectories();
      collectAcks();
      PartitionImage p = partition();
      for (SimBroker broker : brokers.values()) {
        if (broker.alive && broker.offlineReported) {
          assertThat(p.leader())
              .as("b%d reported its directory offline", broker.id)
              .isNotEqualTo(broker.id);
          if (p.isr().contains(broker.id)) {
            assertThat(p.isr())
                .as("offline b%d only as the last ISR member", broker.id)
                .containsExactly(broker.id);
          }
        }
      }
      if (p.leader() != -1) {
        assertThat(p.isr()).contains(p.leader());
      }
      assertThat(p.replicas()).containsAll(p.isr());
      reassignments.checkInvariants();
      for (SimBroker broker : brokers.values()) {
        if (!broker.alive) {
          continue;
        }
        Partition partition = broker.replicas.partition(tp).orElse(null);
        if (partition == null) {
          continue;
        }
        long hw = partition.highWatermark();
        assertThat(hw).isBetween(partition.logStartOffset(), partition.logEndOffset());
        if (partition.isLeader()) {
          String key = broker.id + "/" + partition.leaderEpoch();
          long before = highWatermarks.getOrDefault(key, Long.MIN_VALUE);
          assertThat(hw)
              .as("HW of b%d in epoch %d moved back", broker.id, partition.leaderEpoch())
              .isGreaterThanOrEqualTo(before);
          highWatermarks.put(key, hw);
        }
      }
      // Every acknowledged record is on the replica the image names leader, at its offset. One
      // that has not created the log yet (an adding replica elected uncleanly) will lead it empty.
      SimBroker leader = brokers.get(p.leader());
      if (leader != null && leader.alive) {
        PartitionLog log = leader.replicas.partition(tp).map(Partition::log).orElse(null);
        for (Map.Entry<Long, String> entry : acked.entrySet()) {
          assertThat(valueAt(log, entry.getKey()))
              .as(
                  "acknowledged %s at offset %d on leader b%d",
                  entry.getValue(), entry.getKey(), leader.id)
              .isEqualTo(entry.getValue());
        }
      }
    }

    void collectAcks() {
      for (InFlight f : List.copyOf(inFlight)) {
        if (!f.future.isDone()) {
          continue;
        }
        inFlight.remove(f);
        if (!f.future.isCompletedExceptionally()) {
          long offset = f.future.join().baseOffset();
          String previous = acked.put(offset, f.value);
          assertThat(previous).as("two acknowledged records at offset %d", offset).isNull();
        }
      }
    }

    /**
     * Heals the cluster: everyone up, fetching, heartbeating, until the ISR is full and every log
     * is equal.
     */
    void heal() {
      for (SimBroker broker : List.copyOf(brokers.values())) {
        broker.disk.heal(); // space is back, the device is fine
        if (!broker.alive || broker.logs.isOffline()) {
          broker.crash();
          start(broker.id); // a restart recovers an offline directory
        }
      }
      for (int round = 0; round < 400; round++) {
        deliverAll();
        for (SimBroker broker : brokers.values()) {
          for (int leaderId : broker.fetchers.leaders()) {
            broker.fetchers.fetcher(leaderId).ifPresent(ReplicaFetcher::doWork);
          }
        }
        while (processAlterQuietly()) {
          // drain
        }
        heartbeats();
        clock.advance(50);
        checkInvariants();
        if (converged()) {
          break;
        }
      }
      assertThat(converged()).as("cluster converged: %s", statuses()).isTrue();
      PartitionLog reference = brokers.get(partition().leader()).log();
      for (int id : partition().replicas()) {
        SimBroker broker = brokers.get(id);
        assertThat(batches(broker.log()))
            .as("b%d's log equals the leader's", broker.id)
            .isEqualTo(batches(reference));
        for (Map.Entry<Long, String> entry : acked.entrySet()) {
          assertThat(valueAt(broker.log(), entry.getKey()))
              .as("acknowledged %s at %d on b%d", entry.getValue(), entry.getKey(), broker.id)
              .isEqualTo(entry.getValue());
        }
      }
    }

    boolean processAlterQuietly() {
      if (alters.isEmpty()) {
        return false;
      }
      processAlter();
      return true;
    }

    /**
     * No reassignment left, every replica in sync with the leader's log end offset as its high
     * watermark, and no log on the brokers that hold no replica.
     */
    boolean converged() {
      PartitionImage p = partition();
      if (p.leader() == -1 || p.isReassigning() || p.isr().size() != p.replicas().size()) {
        return false;
      }
      long leo = brokers.get(p.leader()).log().logEndOffset();
      return reassignments.onlyReplicasHoldLogs(p)
          && p.replicas().stream()
              .map(id -> brokers.get(id).replicas.partition(tp).orElse(null))
              .allMatch(r -> r != null && r.logEndOffset() == leo && r.highWatermark() == leo);
    }

    String statuses() {
      StringBuilder s = new StringBuilder(partition().toString());
      brokers.values().forEach(b -> s.append("\n  ").append(b.status()));
      return s.toString();
    }

    void close() {
      brokers.values().forEach(SimBroker::crash);
    }

    /**
     * One broker: its own log directory, log manager, replica manager and (thread-less) fetchers.
     */
    final class SimBroker {
      final int id;
      final DiskFaults.Switchable disk = DiskFaults.switchable();
      final AutoCloseable fault;
      final LogManager logs;
      boolean offlineNoticed;
      boolean offlineReported;
      final ReplicaFetcherManager fetchers;
      final ReplicaManager replicas;
      boolean alive = true;
      boolean registered;
      long brokerEpoch = -1;

      /** The image this incarnation last applied, or null before the first. */
      MetadataImage applied;

      SimBroker(int id) {
        this.id = id;
        fault = DiskFaults.install(dir.resolve("b" + id), disk);
        logs =
            new LogManager(
                dir.resolve("b" + id),
                clock,
                Runnable::run,
                LogCleaner.Config.defaults(),
                new LogDirFailureChannel());
        logs.loadLogs(
            tp ->
                Optional.of(
                    LogConfig.fromMap(
                        image.topic(tp.topic()).map(TopicImage::configs).orElse(Map.of()))));
        ReplicationConfig config = new ReplicationConfig(LAG_MS, 0, 1 << 20, 4096, 100);
        fetchers =
            ReplicaFetcherManager.manual(id, () -> brokerEpoch, new SimEndpoint(), config, clock);
        replicas =
            new ReplicaManager(
                id,
                logs,
                clock,
                Runnable::run,
                clock,
                config,
                request -> {
                  CompletableFuture<Void> future = new CompletableFuture<>();
                  alters.add(new PendingAlter(request, future));
                  return future;
                },
                fetchers);
        replicas.startIsrExpiration();
      }

      long appliedOffset() {
        return replicas.metadataOffset();
      }

      PartitionLog log() {
        return replicas.partition(tp).orElseThrow().log();
      }

      void crash() {
        if (alive) {
          alive = false;
          replicas.shutdown();
          logs.shutdown();
          try {
            fault.close(); // the disk is fine again for the next incarnation
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }
      }

      String status() {
        return replicas
            .partition(tp)
            .map(Partition::statusLine)
            .orElse("b" + id + " (no partition)");
      }
    }

    /** Follower → leader calls, in memory: a dead leader's port refuses connections. */
    final class SimEndpoint implements LeaderEndpoint {
      @Override
      public ReplicaFetch.Response fetch(int leaderId, ReplicaFetch.Request request)
          throws IOException {
        return new ReplicaFetchHandler(leader(leaderId).replicas)
            .handleReplicaFetch(request)
            .join();
      }

      @Override
      public ReplicaFetch.EpochResponse epochEndOffsets(
          int leaderId, ReplicaFetch.EpochRequest request) throws IOException {
        return new ReplicaFetchHandler(leader(leaderId).replicas).handleEpochEndOffsets(request);
      }

      private SimBroker leader(int leaderId) throws IOException {
        SimBroker leader = brokers.get(leaderId);
        if (leader == null || !leader.alive) {
          throw new IOException("connection refused: b" + leaderId + " is down");
        }
        return leader;
      }
    }
  }

  /** The value of the record at {@code offset}, or null if {@code log} (maybe null) lacks it. */
  static String valueAt(PartitionLog log, long offset) {
    if (log == null || offset < log.logStartOffset() || offset >= log.logEndOffset()) {
      return null;
    }
    for (RecordBatch batch :
        BatchIterator.strict(log.read(offset, 1 << 16, Long.MAX_VALUE, true).records())) {
      for (var record : batch.records()) {
        if (record.offset() == offset) {
          return StandardCharsets.UTF_8.decode(record.value()).toString();
        }
      }
    }
    return null;
  }

  /** Every batch as (base offset, epoch, CRC), the identity replicas must agree on. */
  private static List<String> batches(PartitionLog log) {
    List<String> all = new ArrayList<>();
    long offset = log.logStartOffset();
    while (offset < log.logEndOffset()) {
      ByteBuffer read = log.read(offset, 1 << 20, Long.MAX_VALUE, true).records();
      for (RecordBatch batch : BatchIterator.strict(read)) {
        all.add(batch.baseOffset() + "/e" + batch.partitionLeaderEpoch() + "/" + batch.checksum());
        offset = batch.nextOffset();
      }
    }
    return all;
  }
}
