package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Producer id blocks (Kafka's AllocateProducerIds): disjoint across brokers, registrations,
 * controllers (a standby replaying the log, or one starting from a snapshot) and concurrent
 * requests; replayed the same everywhere.
 */
class ProducerIdControlTest {
  @TempDir Path dir;

  /** Commits the allocation and returns its block, as the controller does. */
  static ProducerIdsBlock allocate(ClusterHarness harness, int brokerId) {
    ProducerIdControl.Allocation allocation =
        ProducerIdControl.allocate(harness.image, brokerId, harness.epoch(brokerId));
    harness.commit(allocation.records());
    return allocation.block();
  }

  @Test
  void brokersGetConsecutiveBlocksThatNeverOverlap() {
    ClusterHarness harness = new ClusterHarness(1);
    harness.startBrokers(1, 2, 3);

    List<ProducerIdsBlock> blocks =
        List.of(
            allocate(harness, 1), allocate(harness, 2), allocate(harness, 1), allocate(harness, 3));

    assertThat(blocks)
        .extracting(ProducerIdsBlock::firstProducerId)
        .containsExactly(0L, 1000L, 2000L, 3000L);
    assertThat(blocks).extracting(ProducerIdsBlock::assignedBrokerId).containsExactly(1, 2, 1, 3);
    assertThat(blocks).allSatisfy(b -> assertThat(b.size()).isEqualTo(1000));
    assertThat(harness.image.nextProducerId()).isEqualTo(4000);
    assertThat(harness.log.get(harness.log.size() - 1))
        .isEqualTo(new MetadataRecord.ProducerIds(3, harness.epoch(3), 4000));
  }

  @Test
  void anUnknownBrokerOrAStaleRegistrationGetsNoIds() {
    ClusterHarness harness = new ClusterHarness(1);
    harness.startBrokers(1);
    long oldEpoch = harness.epoch(1);
    harness.register(1, ClusterHarness.incarnation(1, 2)); // a restart: a new broker epoch
    MetadataImage before = harness.image;

    assertThatThrownBy(() -> ProducerIdControl.allocate(harness.image, 9, 0))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> assertThat(e.error()).isEqualTo(Errors.BROKER_ID_NOT_REGISTERED));
    assertThatThrownBy(() -> ProducerIdControl.allocate(harness.image, 1, oldEpoch))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.STALE_BROKER_EPOCH));
    assertThat(harness.image).isSameAs(before);
    assertThat(allocate(harness, 1).firstProducerId()).isZero();
  }

  @Test
  void aRestartedBrokerGetsABlockAboveEveryOneItHadBefore() {
    ClusterHarness harness = new ClusterHarness(1);
    harness.startBrokers(1, 2);
    ProducerIdsBlock first = allocate(harness, 1);
    allocate(harness, 2);
    harness.register(1, ClusterHarness.incarnation(1, 2)); // the ids of its old block are lost

    ProducerIdsBlock afterRestart = allocate(harness, 1);

    assertThat(afterRestart.firstProducerId())
        .isEqualTo(2000)
        .isGreaterThan(first.lastProducerId());
  }

  @Test
  void aNewControllerContinuesAfterTheLastBlockFromTheLogOrFromASnapshot() {
    ClusterHarness active = new ClusterHarness(1);
    active.startBrokers(1, 2, 3);
    for (int i = 0; i < 5; i++) {
      allocate(active, 1 + i % 3);
    }
    MetadataImage standby = MetadataImage.EMPTY;
    for (MetadataRecord record : active.log) {
      standby = standby.replay(standby.lastOffset() + 1, record);
    }
    MetadataImage fromSnapshot = MetadataImage.EMPTY;
    for (MetadataRecord record : active.image.toRecords()) {
      fromSnapshot = fromSnapshot.replay(fromSnapshot.lastOffset() + 1, record);
    }
    assertThat(standby).isEqualTo(active.image);
    assertThat(fromSnapshot.withLastOffset(active.image.lastOffset())).isEqualTo(active.image);

    for (MetadataImage image : List.of(standby, fromSnapshot)) {
      ClusterHarness next = new ClusterHarness(2); // a new controller: soft state starts over
      next.image = image;
      assertThat(allocate(next, 2).firstProducerId()).isEqualTo(5000);
    }
  }

  @Test
  void theRecordRoundTripsAndReplayRefusesToGoBack() {
    for (MetadataRecord record :
        List.of(
            new MetadataRecord.ProducerIds(3, 42, 7000),
            new MetadataRecord.ProducerIds(-1, -1, 1000))) {
      assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(record)))
          .isEqualTo(record);
    }
    MetadataImage image = MetadataImage.EMPTY.replay(0, new MetadataRecord.ProducerIds(1, 0, 2000));
    assertThat(image.nextProducerId()).isEqualTo(2000);
    assertThatThrownBy(() -> image.replay(1, new MetadataRecord.ProducerIds(1, 0, 2000)))
        .isInstanceOf(IllegalStateException.class);
    assertThat(MetadataImage.EMPTY.toRecords()).isEmpty();
  }

  @Test
  void concurrentRequestsToTheControllerGetDisjointBlocksAndARestartedControllerGoesOn()
      throws Exception {
    List<ProducerIdsBlock> blocks = new ArrayList<>();
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      Controller controller = controller(log);
      long[] epochs = new long[4];
      for (int id = 1; id <= 3; id++) {
        epochs[id] =
            controller.registerBroker(
                id,
                ClusterHarness.incarnation(id, 1),
                List.of(AdvertisedListener.http("h", 9000 + id)),
                0);
      }
      ConcurrentLinkedQueue<ProducerIdsBlock> allocated = new ConcurrentLinkedQueue<>();
      ExecutorService threads = Executors.newFixedThreadPool(6);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 6; t++) {
        int brokerId = 1 + t % 3;
        done.add(
            threads.submit(
                () -> {
                  go.await();
                  for (int i = 0; i < 20; i++) {
                    allocated.add(controller.allocateProducerIds(brokerId, epochs[brokerId]));
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
      threads.shutdown();
      blocks.addAll(allocated);
      assertThat(log.image().nextProducerId()).isEqualTo(120 * 1000);
    }
    try (LocalMetadataLog reopened = LocalMetadataLog.open(dir, 1)) {
      Controller controller = controller(reopened);
      long epoch = reopened.image().broker(2).orElseThrow().brokerEpoch();
      blocks.add(controller.allocateProducerIds(2, epoch));
    }
    List<Long> starts = blocks.stream().map(ProducerIdsBlock::firstProducerId).sorted().toList();
    assertThat(starts).doesNotHaveDuplicates().hasSize(121);
    for (int i = 0; i < starts.size(); i++) {
      assertThat(starts.get(i)).isEqualTo(1000L * i); // disjoint and gapless
    }
  }

  private static Controller controller(LocalMetadataLog log) {
    return new Controller(
        log, new TopicControl(new Random(1)), 9_000, dev.tributary.common.Time.SYSTEM);
  }
}
