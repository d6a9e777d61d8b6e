package dev.tributary.replication;

import dev.tributary.common.ManualClock;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.LogConfig;
import dev.tributary.log.LogManager;
import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicControl;
import dev.tributary.metadata.TopicImage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A real {@link ReplicaManager} for broker {@value #LOCAL} over a {@link LogManager} in a test's
 * directory, on a {@link ManualClock} (time and scheduler), with the cluster's metadata built the
 * way the controller builds it ({@link TopicControl}, or placements written out by hand) and
 * replayed into images. Brokers 1, 2 and 3 are registered and unfenced; broker 1 is this one, so a
 * partition placed on 2 or 3 is led elsewhere.
 *
 * <p>The metadata has two positions, as in a cluster: what the controller has committed ({@link
 * #commit}) and what this broker has applied ({@link #catchUp}); {@link #apply} does both. ISR
 * changes the leader proposes are recorded and never answered. Delayed completions run on the
 * thread that releases them. Single-threaded, like the tests that use it.
 */
public final class ReplicaHarness implements AutoCloseable {
  public static final int LOCAL = 1;
  public static final int MAX_BYTES = 1 << 20;

  public final ManualClock clock = new ManualClock();
  private final Path dir;
  private final TopicControl control = new TopicControl(new Random(3));
  private final Random ids = new Random(11);
  private final List<MetadataRecord> committed = new ArrayList<>();
  private final List<Consumer<MetadataImage>> listeners = new ArrayList<>();
  private final List<AlterPartitionRequest> alterPartitions = new ArrayList<>();
  private MetadataImage controllerImage = MetadataImage.EMPTY;
  private MetadataImage image = MetadataImage.EMPTY;
  private int applied;
  private LogManager logManager;
  private ReplicaManager replicaManager;

  /** One placement of a partition: replicas, ISR, leader (-1: offline) and leader epoch. */
  public record Placement(List<Integer> replicas, List<Integer> isr, int leader, int leaderEpoch) {
    /** Led by {@code leader} alone. */
    public static Placement on(int leader) {
      return new Placement(List.of(leader), List.of(leader), leader, 0);
    }

    /** Replicated on {@code replicas}, all in sync, led by the first in {@code leaderEpoch}. */
    public static Placement replicated(int leaderEpoch, Integer... replicas) {
      return new Placement(List.of(replicas), List.of(replicas), replicas[0], leaderEpoch);
    }

    /** Offline: its last in-sync replica {@code lastIsr} is on a fenced broker. */
    public static Placement offline(int lastIsr) {
      return new Placement(List.of(lastIsr), List.of(lastIsr), -1, 1);
    }
  }

  public ReplicaHarness(Path dir) {
    this.dir = dir;
    for (int id = 1; id <= 3; id++) {
      commit(
          List.of(new MetadataRecord.RegisterBroker(id, new Uuid(id, 1), "localhost", 9000 + id)));
      commit(List.of(new MetadataRecord.BrokerUnfenced(id, controllerImage.lastOffset())));
    }
    start();
    catchUp();
  }

  private void start() {
    logManager = new LogManager(dir, clock);
    MetadataImage known = image;
    logManager.loadLogs(
        tp ->
            known
                .topic(tp.topic())
                .filter(t -> t.partitions().containsKey(tp.partition()))
                .map(t -> LogConfig.fromMap(t.configs())),
        tp -> known.topic(tp.topic()).map(t -> t.topicId().toString()));
    ReplicationConfig config = new ReplicationConfig(10_000, 500, MAX_BYTES, MAX_BYTES, 100);
    replicaManager =
        new ReplicaManager(
            LOCAL,
            logManager,
            clock,
            Runnable::run,
            clock,
            config,
            request -> {
              alterPartitions.add(request);
              return new CompletableFuture<>();
            },
            ReplicaFetcherManager.manual(
                LOCAL, () -> brokerEpoch(LOCAL), LeaderEndpoint.NONE, config, clock));
  }

  // ------------------------------------------------------------------------------------ metadata

  /** The controller commits {@code records}; this broker has not applied them yet. */
  public void commit(List<MetadataRecord> records) {
    for (MetadataRecord record : records) {
      controllerImage = controllerImage.replay(controllerImage.lastOffset() + 1, record);
      committed.add(record);
    }
  }

  /** This broker applies everything committed: the replica manager first, then the listeners. */
  public void catchUp() {
    while (applied < committed.size()) {
      image = image.replay(image.lastOffset() + 1, committed.get(applied++));
    }
    replicaManager.onMetadataUpdate(image);
    listeners.forEach(listener -> listener.accept(image));
  }

  public void apply(List<MetadataRecord> records) {
    commit(records);
    catchUp();
  }

  /** Told of every image this broker applies, after the replica manager. */
  public void onApplied(Consumer<MetadataImage> listener) {
    listeners.add(listener);
  }

  /** The image this broker has applied. */
  public MetadataImage image() {
    return image;
  }

  /** The image with everything the controller has committed. */
  public MetadataImage controllerImage() {
    return controllerImage;
  }

  /**
   * Creates {@code name} the way the controller does, its partitions placed over {@code brokers}.
   */
  public TopicImage createTopic(
      String name, int partitions, Map<String, String> configs, Integer... brokers) {
    apply(
        control.createTopic(
            controllerImage, name, partitions, brokers.length, configs, List.of(brokers)));
    return image.topic(name).orElseThrow();
  }

  /** Creates {@code name} with its partitions placed as given, in order. */
  public TopicImage placeTopic(String name, Map<String, String> configs, Placement... partitions) {
    Uuid topicId = Uuid.random(ids);
    List<MetadataRecord> records = new ArrayList<>();
    records.add(new MetadataRecord.TopicCreated(topicId, name));
    configs.forEach((k, v) -> records.add(new MetadataRecord.TopicConfigChanged(topicId, k, v)));
    for (int p = 0; p < partitions.length; p++) {
      Placement placed = partitions[p];
      records.add(
          new MetadataRecord.PartitionChange(
              topicId,
              p,
              placed.replicas(),
              placed.isr(),
              placed.leader(),
              placed.leaderEpoch(),
              0));
    }
    apply(records);
    return image.topic(name).orElseThrow();
  }

  /** Moves {@code tp} to {@code placement} in a new partition epoch (a leader change, say). */
  public void move(TopicPartition tp, Placement placement) {
    TopicImage topic = controllerImage.topic(tp.topic()).orElseThrow();
    PartitionImage now = topic.requirePartition(tp.partition());
    apply(
        List.of(
            new MetadataRecord.PartitionChange(
                topic.topicId(),
                tp.partition(),
                placement.replicas(),
                placement.isr(),
                placement.leader(),
                placement.leaderEpoch(),
                now.partitionEpoch() + 1)));
  }

  public long brokerEpoch(int brokerId) {
    return controllerImage.broker(brokerId).orElseThrow().brokerEpoch();
  }

  /** The ISR changes the leaders here proposed, in order (never answered). */
  public List<AlterPartitionRequest> alterPartitions() {
    return alterPartitions;
  }

  // ------------------------------------------------------------------------------------ traffic

  public ReplicaManager replicaManager() {
    return replicaManager;
  }

  public LogManager logManager() {
    return logManager;
  }

  public Partition partition(TopicPartition tp) {
    return replicaManager.partition(tp).orElseThrow();
  }

  /** Appends {@code batches} to {@code tp} with acks=1 and returns where they went. */
  public ProducePartitionResult append(TopicPartition tp, ByteBuffer batches) {
    ProducePartitionResult result =
        replicaManager.appendRecords(Map.of(tp, batches), Acks.LEADER, 30_000).join().get(tp);
    if (result.error() != Errors.NONE) {
      throw result.error().exception(result.errorMessage());
    }
    return result;
  }

  /**
   * Follower {@code replicaId} fetches {@code tp} from {@code fetchOffset}, telling this leader its
   * log end offset (which moves the high watermark), and gets what it read.
   */
  public FetchPartitionData followerFetch(TopicPartition tp, int replicaId, long fetchOffset) {
    return replicaManager
        .fetchMessages(
            FetchParams.follower(replicaId, brokerEpoch(replicaId), 0, 1, MAX_BYTES),
            List.of(
                new PartitionFetch(
                    tp, fetchOffset, MAX_BYTES, PartitionFetch.NO_EPOCH, PartitionFetch.NO_EPOCH)))
        .join()
        .get(0);
  }

  /**
   * Stops this broker and starts it again over the same directory with the metadata it had. {@code
   * clean}: the replica manager shuts down (checkpointing the high watermarks) before the logs;
   * otherwise only the logs close, as if the process died after its last periodic checkpoint.
   */
  public void restart(boolean clean) {
    if (clean) {
      replicaManager.shutdown();
    }
    logManager.shutdown();
    start();
    replicaManager.onMetadataUpdate(image);
  }

  @Override
  public void close() {
    replicaManager.shutdown();
    logManager.shutdown();
  }

  // ------------------------------------------------------------------------------------ batches

  /** One batch of string values, every record stamped {@code timestampMs}. */
  public static ByteBuffer batchAt(long timestampMs, String... values) {
    List<SimpleRecord> records = new ArrayList<>();
    for (String value : values) {
      records.add(new SimpleRecord(timestampMs, null, value.getBytes(StandardCharsets.UTF_8)));
    }
    return RecordBatchBuilder.build(records, CompressionType.NONE, 0L, -1);
  }

  public static ByteBuffer batch(String... values) {
    return TestBatches.batch(values);
  }

  /** The values of every record in {@code records}, in order. */
  public static List<String> values(ByteBuffer records) {
    return TestBatches.values(records.duplicate());
  }

  /** The base offsets of the batches in {@code records}. */
  public static List<Long> baseOffsets(ByteBuffer records) {
    List<Long> offsets = new ArrayList<>();
    for (RecordBatch batch : BatchIterator.strict(records.duplicate())) {
      offsets.add(batch.baseOffset());
    }
    return offsets;
  }

  /** The leader epoch stamped on each batch in {@code records}. */
  public static List<Integer> epochs(ByteBuffer records) {
    List<Integer> epochs = new ArrayList<>();
    for (RecordBatch batch : BatchIterator.strict(records.duplicate())) {
      epochs.add(batch.partitionLeaderEpoch());
    }
    return epochs;
  }
}
