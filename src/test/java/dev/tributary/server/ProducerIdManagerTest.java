package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.ManualClock;
import dev.tributary.common.Time;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.NotControllerException;
import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.metadata.Controller;
import dev.tributary.metadata.LocalMetadataLog;
import dev.tributary.metadata.ProducerIdsBlock;
import dev.tributary.metadata.TopicControl;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker's producer ids (Kafka's RPCProducerIdManager): consecutive from its block, the next
 * block asked for at 90%, waiting or failing retriably without one, and never an id twice, across
 * threads, brokers, restarts of the broker and of the controller.
 */
class ProducerIdManagerTest {
  @TempDir Path dir;
  final ManualClock clock = new ManualClock();
  final ExecutorService executor = Executors.newFixedThreadPool(8);

  /** The allocations asked for, answered by the test. */
  final Deque<CompletableFuture<ProducerIdsBlock>> asked = new ArrayDeque<>();

  final ProducerIdManager manager =
      new ProducerIdManager(
          1,
          () -> {
            CompletableFuture<ProducerIdsBlock> answer = new CompletableFuture<>();
            asked.add(answer);
            return answer;
          },
          clock);

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  static Errors errorOf(CompletableFuture<?> future) {
    assertThat(future).isCompletedExceptionally();
    return Errors.forException(future.handle((v, e) -> e).join());
  }

  @Test
  void idsComeInOrderFromTheBlockAndTheNextBlockIsAskedForAtNinetyPercent() {
    CompletableFuture<Long> first = manager.generateProducerId();
    assertThat(first).isNotDone();
    assertThat(asked).hasSize(1);
    asked.poll().complete(new ProducerIdsBlock(1, 5_000, 10));
    assertThat(first).isCompletedWithValue(5_000L);

    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      ids.add(manager.generateProducerId().join());
    }
    assertThat(ids).containsExactly(5_001L, 5_002L, 5_003L, 5_004L, 5_005L, 5_006L, 5_007L, 5_008L);
    assertThat(asked).as("the next block is asked for once 9 of 10 are used").hasSize(1);

    assertThat(manager.generateProducerId().join()).isEqualTo(5_009L);
    assertThat(asked).as("one request in flight at a time").hasSize(1);
    CompletableFuture<Long> waiting = manager.generateProducerId();
    assertThat(waiting).isNotDone();

    asked.poll().complete(new ProducerIdsBlock(1, 9_000, 10));
    assertThat(waiting).isCompletedWithValue(9_000L);
    assertThat(manager.generateProducerId().join()).isEqualTo(9_001L);
  }

  @Test
  void requestsThatFindNoIdWaitForTheBlockInArrivalOrder() {
    List<CompletableFuture<Long>> waiting = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      waiting.add(manager.generateProducerId());
    }
    assertThat(asked).hasSize(1);

    asked.poll().complete(new ProducerIdsBlock(1, 0, 3)); // fewer ids than requests

    assertThat(waiting.subList(0, 3))
        .extracting(CompletableFuture::join)
        .containsExactly(0L, 1L, 2L);
    assertThat(waiting.get(3)).isNotDone();
    asked.poll().complete(new ProducerIdsBlock(1, 3_000, 3));
    assertThat(waiting.get(3)).isCompletedWithValue(3_000L);
  }

  @Test
  void withoutABlockRequestsFailRetriablyAndTheNextAskIsAfterTheBackoff() {
    CompletableFuture<Long> waiting = manager.generateProducerId();
    asked.poll().completeExceptionally(new NotControllerException("no controller yet"));

    assertThat(errorOf(waiting)).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);
    assertThat(Errors.COORDINATOR_LOAD_IN_PROGRESS.retriable()).isTrue();
    assertThat(errorOf(manager.generateProducerId()))
        .isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);
    assertThat(asked).as("backing off").isEmpty();

    clock.advance(ProducerIdManager.RETRY_BACKOFF_MS);
    CompletableFuture<Long> again = manager.generateProducerId();
    asked.poll().complete(new ProducerIdsBlock(1, 0, 10));
    assertThat(again).isCompletedWithValue(0L);
  }

  @Test
  void theRetryBackoffEndsOnTimeAfterTheWallClockStepsBack() {
    CompletableFuture<Long> waiting = manager.generateProducerId();
    asked.poll().completeExceptionally(new NotControllerException("no controller yet"));
    assertThat(errorOf(waiting)).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);

    clock.jumpWallClock(-600_000);
    clock.advance(ProducerIdManager.RETRY_BACKOFF_MS);
    manager.generateProducerId();
    assertThat(asked).as("asked again once the backoff is over, not ten minutes later").hasSize(1);
  }

  @Test
  void aBlockThatIsNotAboveEveryIdHandedOutIsRefused() {
    CompletableFuture<Long> first = manager.generateProducerId();
    asked.poll().complete(new ProducerIdsBlock(1, 1_000, 2));
    assertThat(first.join()).isEqualTo(1_000L);
    manager.generateProducerId().join(); // 1001; the next block is asked for

    asked.poll().complete(new ProducerIdsBlock(1, 1_001, 2)); // overlaps: a bug somewhere

    assertThat(errorOf(manager.generateProducerId()))
        .isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);
  }

  @Test
  void concurrentRequestsNeverGetTheSameId() throws Exception {
    long[] next = {0};
    ProducerIdManager shared =
        new ProducerIdManager(
            1,
            () ->
                CompletableFuture.supplyAsync(
                    () -> {
                      synchronized (next) {
                        ProducerIdsBlock block = new ProducerIdsBlock(1, next[0], 7);
                        next[0] += 7;
                        return block;
                      }
                    },
                    executor),
            Time.SYSTEM);
    Set<Long> ids = java.util.concurrent.ConcurrentHashMap.newKeySet();
    List<Long> all = java.util.Collections.synchronizedList(new ArrayList<>());
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> threads = new ArrayList<>();
    ExecutorService callers = Executors.newFixedThreadPool(6);
    for (int t = 0; t < 6; t++) {
      threads.add(
          callers.submit(
              () -> {
                go.await();
                for (int i = 0; i < 500; i++) {
                  long id = shared.generateProducerId().get(10, TimeUnit.SECONDS);
                  ids.add(id);
                  all.add(id);
                }
                return null;
              }));
    }
    go.countDown();
    for (Future<?> thread : threads) {
      thread.get(60, TimeUnit.SECONDS);
    }
    callers.shutdown();
    assertThat(all).hasSize(3_000);
    assertThat(ids).hasSize(3_000);
  }

  @Test
  void brokersAndTheirRestartsOverARealControllerNeverShareAnId() throws Exception {
    Set<Long> handedOut = new HashSet<>();
    for (int generation = 1; generation <= 2; generation++) { // the second: everyone restarted
      try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
        ControllerService controller =
            new ControllerService(
                new Controller(log, new TopicControl(new Random(1)), 9_000, Time.SYSTEM),
                log,
                Time.SYSTEM,
                BrokerProbe.tcp(10));
        List<ProducerIdManager> brokers = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
          long epoch =
              controller
                  .register(
                      null,
                      new ControllerChannel.BrokerRegistration(
                          id,
                          new Uuid(id, generation).toString(),
                          List.of(AdvertisedListener.http("localhost", 9000 + id))))
                  .brokerEpoch();
          int brokerId = id;
          brokers.add(
              new ProducerIdManager(
                  id,
                  () ->
                      CompletableFuture.supplyAsync(
                          () -> controller.allocateProducerIds(null, brokerId, epoch), executor),
                  Time.SYSTEM));
        }
        List<Future<List<Long>>> calls = new ArrayList<>();
        for (ProducerIdManager broker : brokers) {
          for (int caller = 0; caller < 2; caller++) {
            calls.add(
                executor.submit(
                    () -> {
                      List<Long> got = new ArrayList<>();
                      for (int i = 0; i < 700; i++) {
                        got.add(broker.generateProducerId().get(10, TimeUnit.SECONDS));
                      }
                      return got;
                    }));
          }
        }
        for (Future<List<Long>> call : calls) {
          for (long id : call.get(60, TimeUnit.SECONDS)) {
            assertThat(handedOut.add(id)).as("producer id %d handed out twice", id).isTrue();
          }
        }
      }
    }
    assertThat(handedOut).hasSize(2 * 3 * 2 * 700);
  }
}
