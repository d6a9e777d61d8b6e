package dev.tributary.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.ManualClock;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.StaleBrokerEpochException;
import dev.tributary.log.LogCleaner;
import dev.tributary.log.LogConfig;
import dev.tributary.log.LogDirFailureChannel;
import dev.tributary.log.LogManager;
import dev.tributary.log.PartitionLog;
import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
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
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An idempotent producer against a replicated partition whose leaders fail (docs/adr/0018): three
 * brokers with real logs and replica managers and the real controller logic, on one thread with a
 * fake clock, as in {@link ReplicationSimulationTest}. The producer keeps up to five batches in
 * flight with {@code acks=all} and resends every batch it has no answer for, to whichever broker
 * leads now, as a Kafka producer does. After every event no replica stores a sequence number twice,
 * and every acknowledged batch is on the leader at the offsets it was acknowledged with; a retry
 * acknowledged again gets the same offsets. At the end every batch is acknowledged and in every
 * replica's log exactly once, in sequence order.
 */
class IdempotentProduceSimulationTest {
  private static final long PRODUCER_ID = 7_000;
  private static final long LAG_MS = 1_000;
  private static final long SESSION_MS = 2_000;
  private static final TopicPartition TP = new TopicPartition("t", 0);

  @TempDir Path root;

  @Test
  void aRetryAfterFailoverIsAnsweredByTheNewLeaderWithTheOriginalOffsets() {
    Cluster cluster = new Cluster(root.resolve("failover"));
    try {
      cluster.start();
      cluster.settle();
      int oldLeader = cluster.partition().leader();
      cluster.send(
          cluster.producer.next(2, cluster.clock.milliseconds())); // offsets 0, 1: acknowledged
      cluster.settle();
      Batch lost = cluster.producer.next(3, cluster.clock.milliseconds());
      cluster.send(lost);
      for (Cluster.Broker broker : cluster.brokers.values()) { // replicated, not yet committed
        if (broker.id != oldLeader) {
          broker.fetchOnce();
        }
      }
      assertThat(cluster.producer.acked).doesNotContainKey(lost.firstSeq);

      cluster.brokers.get(oldLeader).crash(); // the answer never reaches the producer
      cluster.commit(
          cluster.control.fenceBroker(
              cluster.image, oldLeader, cluster.brokers.get(oldLeader).brokerEpoch));
      cluster.deliverAll();
      int newLeader = cluster.partition().leader();
      assertThat(newLeader).isNotEqualTo(oldLeader).isPositive();

      cluster.send(lost); // the retry
      cluster.settle();

      assertThat(cluster.producer.acked.get(lost.firstSeq)).containsExactly(2L, 4L);
      assertThat(cluster.brokers.get(newLeader).log().logEndOffset()).isEqualTo(5);
      cluster.checkNoSequenceStoredTwice();
    } finally {
      cluster.close();
    }
  }

  @Test
  void noRetriedBatchIsEverStoredTwiceAcrossFailures() {
    long fixed = Long.getLong("tributary.seed", -1);
    int retriesAnswered = 0;
    int crashes = 0;
    for (long seed = fixed >= 0 ? fixed : 0; seed < (fixed >= 0 ? fixed + 1 : 15); seed++) {
      Cluster cluster = new Cluster(root.resolve("seed-" + seed));
      Random random = new Random(seed);
      try {
        cluster.start();
        for (int i = 0; i < 400; i++) {
          cluster.record(cluster.step(random));
          cluster.checkInvariants();
        }
        cluster.heal();
        retriesAnswered += cluster.producer.reacknowledged;
        crashes += cluster.crashes;
      } catch (Throwable e) {
        throw new AssertionError(
            "seed "
                + seed
                + " failed (rerun with -Dtributary.seed="
                + seed
                + "): "
                + e
                + "\nlast events:\n"
                + String.join("\n", cluster.history),
            e);
      } finally {
        cluster.close();
      }
    }
    assertThat(retriesAnswered).as("retries answered with the original offsets").isPositive();
    assertThat(crashes).as("crashes").isGreaterThan(15);
  }

  /**
   * One batch as the producer built it: its sequence numbers and bytes (sent again as they are).
   */
  record Batch(int firstSeq, int count, byte[] bytes) {
    ByteBuffer request() {
      return ByteBuffer.wrap(bytes.clone());
    }
  }

  /** The idempotent producer: one id, epoch 0, sequence numbers from 0, at most 5 in flight. */
  static final class Producer {
    int nextSeq;
    final Deque<Batch> unacknowledged = new ArrayDeque<>();

    /** First sequence → the offsets it was acknowledged with (first, last). */
    final Map<Integer, List<Long>> acked = new TreeMap<>();

    int reacknowledged;

    /**
     * The next batch, stamped {@code timestampMs} (the producer's clock: a producer's state expires
     * {@code producer.id.expiration.ms} after its last batch's timestamp).
     */
    Batch next(int count, long timestampMs) {
      List<SimpleRecord> records = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        byte[] value = ("s" + (nextSeq + i)).getBytes(StandardCharsets.UTF_8);
        records.add(new SimpleRecord(timestampMs, null, value));
      }
      ByteBuffer built =
          RecordBatchBuilder.build(
              records, CompressionType.NONE, 0, -1, PRODUCER_ID, (short) 0, nextSeq);
      byte[] bytes = new byte[built.remaining()];
      built.get(bytes);
      Batch batch = new Batch(nextSeq, count, bytes);
      nextSeq += count;
      unacknowledged.addLast(batch);
      return batch;
    }

    void onAnswer(Batch batch, ProducePartitionResult result) {
      assertThat(result.lastOffset() - result.baseOffset() + 1).isEqualTo(batch.count());
      List<Long> offsets = List.of(result.baseOffset(), result.lastOffset());
      List<Long> before = acked.putIfAbsent(batch.firstSeq(), offsets);
      if (before != null) {
        assertThat(offsets).as("a retry of seq %d answered", batch.firstSeq()).isEqualTo(before);
        reacknowledged++;
      }
      unacknowledged.remove(batch);
    }
  }

  /** Three brokers, the controller's logic and the producer, stepped by hand. */
  final class Cluster {
    final Path dir;
    final ManualClock clock = new ManualClock();
    final ClusterControl control = new ClusterControl(new BrokerHeartbeatManager(SESSION_MS));
    final TopicControl topics = new TopicControl(new Random(1));
    final Map<Integer, Broker> brokers = new TreeMap<>();
    final Deque<Runnable> alters = new ArrayDeque<>();
    final Producer producer = new Producer();
    final List<CompletableFuture<Void>> answers = new ArrayList<>();
    final List<String> history = new ArrayList<>();
    MetadataImage image = MetadataImage.EMPTY;
    int generation;
    int crashes;

    Cluster(Path dir) {
      this.dir = dir;
    }

    void start() {
      for (int id = 1; id <= 3; id++) {
        startBroker(id);
      }
      commit(
          topics.createTopic(
              image,
              TP.topic(),
              1,
              3,
              Map.of(LogConfig.MIN_IN_SYNC_REPLICAS, "2", LogConfig.SEGMENT_BYTES, "2048"),
              List.of(1, 2, 3)));
      deliverAll();
    }

    void record(String event) {
      history.add("t=" + clock.milliseconds() + " " + event);
      if (history.size() > 40) {
        history.remove(0);
      }
    }

    String step(Random random) {
      int dice = random.nextInt(100);
      if (dice < 30) {
        boolean fresh = producer.unacknowledged.size() < 5 && random.nextBoolean();
        Batch batch =
            fresh
                ? producer.next(1 + random.nextInt(3), clock.milliseconds())
                : producer.unacknowledged.isEmpty() ? null : producer.unacknowledged.peekFirst();
        return batch == null ? "nothing to send" : send(batch);
      } else if (dice < 65) {
        Broker broker = randomAlive(random);
        return broker == null
            ? "fetch: nobody alive"
            : "b" + broker.id + " fetches: " + broker.fetchOnce();
      } else if (dice < 75) {
        Broker broker = randomAlive(random);
        if (broker != null) {
          broker.replicas.onMetadataUpdate(image);
        }
        return "metadata to " + (broker == null ? "nobody" : "b" + broker.id);
      } else if (dice < 82) {
        Runnable alter = alters.poll();
        if (alter != null) {
          alter.run();
        }
        return "controller handles an ISR change";
      } else if (dice < 90) {
        clock.advance(1 + random.nextInt(500));
        return "time passes";
      } else if (dice < 96) {
        return heartbeats();
      } else if (dice < 98) {
        List<Broker> alive = brokers.values().stream().filter(b -> b.alive).toList();
        if (alive.size() < 2) {
          return "crash: keeps the last broker";
        }
        Broker victim = alive.get(random.nextInt(alive.size()));
        victim.crash();
        crashes++;
        return "crash b" + victim.id;
      }
      List<Broker> dead = brokers.values().stream().filter(b -> !b.alive).toList();
      if (dead.isEmpty()) {
        return "restart: nobody is down";
      }
      Broker broker = dead.get(random.nextInt(dead.size()));
      startBroker(broker.id);
      return "restart b" + broker.id;
    }

    /** Sends {@code batch} to the broker the image names leader, as a client would. */
    String send(Batch batch) {
      Broker leader = brokers.get(partition().leader());
      String what = "seq " + batch.firstSeq() + "+" + batch.count();
      if (leader == null || !leader.alive) {
        return what + ": no live leader";
      }
      try {
        answers.add(
            ReplicaManagerCalls.append(leader.replicas, TP, batch.request(), Acks.ALL, 3_000)
                .handle(
                    (result, failure) -> {
                      if (failure == null) {
                        producer.onAnswer(batch, result);
                      } else {
                        requireRetriable(failure);
                      }
                      return null;
                    }));
        return what + " to b" + leader.id;
      } catch (ApiException e) {
        requireRetriable(e);
        return what + " refused by b" + leader.id + ": " + e.error();
      }
    }

    /** A failure the producer retries; an idempotent producer of one epoch is never fenced. */
    void requireRetriable(Throwable failure) {
      Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
      assertThat(Errors.forException(cause))
          .as("%s", cause)
          .isIn(
              Errors.REQUEST_TIMED_OUT,
              Errors.NOT_LEADER_OR_FOLLOWER,
              Errors.LEADER_NOT_AVAILABLE,
              Errors.NOT_ENOUGH_REPLICAS,
              Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
              Errors.OUT_OF_ORDER_SEQUENCE_NUMBER); // a batch before it is not there yet
    }

    String heartbeats() {
      for (Broker broker : brokers.values()) {
        if (broker.alive) {
          try {
            commit(
                control
                    .heartbeat(
                        image,
                        broker.id,
                        broker.brokerEpoch,
                        broker.replicas.metadataOffset(),
                        false,
                        clock.milliseconds())
                    .records());
          } catch (StaleBrokerEpochException e) {
            // a restarted broker's old registration
          }
        }
      }
      commit(control.fenceStaleBrokers(image, clock.milliseconds()));
      return "heartbeats";
    }

    void startBroker(int id) {
      Broker broker = new Broker(id);
      brokers.put(id, broker);
      commit(
          control.register(
              image,
              id,
              new Uuid(id, ++generation),
              List.of(AdvertisedListener.http("localhost", 9000 + id)),
              clock.milliseconds()));
      broker.brokerEpoch = image.broker(id).orElseThrow().brokerEpoch();
      broker.replicas.onMetadataUpdate(image);
      commit(
          control
              .heartbeat(image, id, broker.brokerEpoch, image.lastOffset(), clock.milliseconds())
              .records());
    }

    void commit(List<MetadataRecord> records) {
      for (MetadataRecord record : records) {
        image = image.replay(image.lastOffset() + 1, record);
      }
    }

    void deliverAll() {
      brokers.values().stream()
          .filter(b -> b.alive)
          .forEach(b -> b.replicas.onMetadataUpdate(image));
    }

    PartitionImage partition() {
      return image.topic(TP.topic()).map(t -> t.partitions().get(0)).orElseThrow();
    }

    Broker randomAlive(Random random) {
      List<Broker> alive = brokers.values().stream().filter(b -> b.alive).toList();
      return alive.isEmpty() ? null : alive.get(random.nextInt(alive.size()));
    }

    /** Metadata, fetches, ISR changes and heartbeats until nothing moves any more. */
    void settle() {
      for (int round = 0; round < 20; round++) {
        deliverAll();
        brokers.values().stream().filter(b -> b.alive).forEach(Broker::fetchOnce);
        while (!alters.isEmpty()) {
          alters.poll().run();
        }
        heartbeats();
        clock.advance(10);
      }
    }

    /** Everyone up, the producer resends until every batch is acknowledged; then the logs agree. */
    void heal() {
      brokers.values().stream()
          .filter(b -> !b.alive)
          .map(b -> b.id)
          .toList()
          .forEach(this::startBroker);
      for (int round = 0;
          round < 300 && !(producer.unacknowledged.isEmpty() && converged());
          round++) {
        if (!producer.unacknowledged.isEmpty()
            && answers.stream().allMatch(CompletableFuture::isDone)) {
          answers.clear();
          List.copyOf(producer.unacknowledged).forEach(this::send);
        }
        settle();
        checkInvariants();
      }
      assertThat(producer.unacknowledged).as("every batch acknowledged").isEmpty();
      assertThat(converged()).as("logs converged").isTrue();
      for (Broker broker : brokers.values()) {
        List<Integer> sequences = new ArrayList<>();
        producerBatches(broker.log())
            .forEach(
                batch -> {
                  assertThat(producer.acked.get(batch.baseSequence()))
                      .containsExactly(batch.baseOffset(), batch.lastOffset());
                  for (int i = 0; i <= batch.lastOffsetDelta(); i++) {
                    sequences.add(batch.baseSequence() + i);
                  }
                });
        assertThat(sequences)
            .as("b%d holds every sequence once, in order", broker.id)
            .isEqualTo(java.util.stream.IntStream.range(0, producer.nextSeq).boxed().toList());
      }
    }

    boolean converged() {
      PartitionImage p = partition();
      if (p.leader() < 0 || p.isr().size() != 3) {
        return false;
      }
      long end = brokers.get(p.leader()).log().logEndOffset();
      return brokers.values().stream()
          .allMatch(
              b ->
                  b.alive
                      && b.log().logEndOffset() == end
                      && b.replicas.partition(TP).orElseThrow().highWatermark() == end);
    }

    void checkInvariants() {
      checkNoSequenceStoredTwice();
      Broker leader = brokers.get(partition().leader());
      if (leader == null || !leader.alive) {
        return;
      }
      Map<Integer, RecordBatch> bySeq = new HashMap<>();
      producerBatches(leader.log()).forEach(b -> bySeq.put(b.baseSequence(), b));
      producer.acked.forEach(
          (seq, offsets) -> {
            RecordBatch stored = bySeq.get(seq);
            assertThat(stored).as("acknowledged seq %d on leader b%d", seq, leader.id).isNotNull();
            assertThat(List.of(stored.baseOffset(), stored.lastOffset())).isEqualTo(offsets);
          });
    }

    void checkNoSequenceStoredTwice() {
      for (Broker broker : brokers.values()) {
        if (!broker.alive) {
          continue;
        }
        Map<Integer, Long> offsetOfSeq = new HashMap<>();
        producerBatches(broker.log())
            .forEach(
                batch -> {
                  for (int i = 0; i <= batch.lastOffsetDelta(); i++) {
                    Long first =
                        offsetOfSeq.putIfAbsent(batch.baseSequence() + i, batch.baseOffset() + i);
                    assertThat(first)
                        .as(
                            "b%d stores seq %d at %s and %d",
                            broker.id, batch.baseSequence() + i, first, batch.baseOffset() + i)
                        .isNull();
                  }
                });
      }
    }

    List<RecordBatch> producerBatches(PartitionLog log) {
      List<RecordBatch> batches = new ArrayList<>();
      long offset = log.logStartOffset();
      while (offset < log.logEndOffset()) {
        for (RecordBatch batch : log.read(offset, 1 << 20, Long.MAX_VALUE, true).batches()) {
          assertThat(batch.producerId()).isEqualTo(PRODUCER_ID);
          batches.add(batch);
          offset = batch.nextOffset();
        }
      }
      return batches;
    }

    void close() {
      brokers.values().forEach(Broker::crash);
    }

    /** One broker: its log directory, log manager, replica manager and thread-less fetchers. */
    final class Broker {
      final int id;
      final LogManager logs;
      final ReplicaFetcherManager fetchers;
      final ReplicaManager replicas;
      boolean alive = true;
      long brokerEpoch = -1;

      Broker(int id) {
        this.id = id;
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
            ReplicaFetcherManager.manual(id, () -> brokerEpoch, new Endpoint(), config, clock);
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
                  alters.add(
                      () -> {
                        try {
                          commit(
                              IsrControl.alterPartition(
                                  image,
                                  Uuid.parse(request.topicId()),
                                  request.topicPartition().partition(),
                                  request.leaderId(),
                                  request.leaderEpoch(),
                                  request.partitionEpoch(),
                                  request.newIsr(),
                                  request.brokerEpochs()));
                          future.complete(null);
                        } catch (ApiException e) {
                          future.completeExceptionally(e);
                        }
                      });
                  return future;
                },
                fetchers);
        replicas.startIsrExpiration();
      }

      String fetchOnce() {
        for (int leaderId : fetchers.leaders()) {
          fetchers.fetcher(leaderId).ifPresent(ReplicaFetcher::doWork);
        }
        return replicas.partition(TP).map(Partition::statusLine).orElse("no partition");
      }

      PartitionLog log() {
        return replicas.partition(TP).orElseThrow().log();
      }

      void crash() {
        if (alive) {
          replicas
              .partition(TP)
              .ifPresent(
                  p ->
                      System.out.println(
                          +id
                              + " leo="
                              + p.log().logEndOffset()
                              + " producers="
                              + p.log().activeProducers().values().stream()
                                  .map(x -> x.batches().toString())
                                  .toList()));
          alive = false;
          replicas.shutdown();
          logs.shutdown();
        }
      }
    }

    /** Follower → leader calls in memory; a dead leader refuses connections. */
    final class Endpoint implements LeaderEndpoint {
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

      private Broker leader(int leaderId) throws IOException {
        Broker leader = brokers.get(leaderId);
        if (leader == null || !leader.alive) {
          throw new IOException("connection refused: b" + leaderId + " is down");
        }
        return leader;
      }
    }
  }
}
