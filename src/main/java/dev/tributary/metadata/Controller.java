package dev.tributary.metadata;

import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.Uuid;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The active controller's request path: it serializes "compute records from the current image, then
 * commit them", so that two concurrent requests cannot both pass validation against the same image
 * (two creates of one topic, say). Topic requests go to {@link TopicControl}; broker registration,
 * heartbeats and fencing go to {@link ClusterControl}, whose {@link BrokerHeartbeatManager} (soft
 * state) this controller owns.
 *
 * <p>Time comes in as {@code nowMs}, monotonic ({@link Time#monotonicMs}: broker sessions must not
 * follow a jump of the wall clock); a driver calls {@link #maybeFenceStaleBrokers} again after the
 * delay it returns, and {@link #onBecomeActive} when this member becomes the active controller.
 * Appends on a member that is not the active controller fail with {@link
 * dev.tributary.common.errors.NotControllerException} (from the quorum).
 *
 * <p>Every batch it commits ends with a {@link MetadataRecord.EventsRecorded} describing it for the
 * cluster's timeline ({@link ClusterEvents}): timestamped by this controller's clock, with the
 * reason the caller gave.
 *
 * <p>Concurrency: every public method is serialized on this object.
 */
public final class Controller {
  private static final org.slf4j.Logger logger =
      org.slf4j.LoggerFactory.getLogger(Controller.class);
  private static final int MAX_ATTEMPTS = 5;
  private final MetadataQuorum quorum;
  private final TopicControl topics;
  private final ClusterControl cluster;
  private final Time time;

  public Controller(
      MetadataQuorum quorum, TopicControl topics, long brokerSessionTimeoutMs, Time time) {
    this.quorum = quorum;
    this.topics = topics;
    this.cluster = new ClusterControl(new BrokerHeartbeatManager(brokerSessionTimeoutMs));
    this.time = time;
  }

  public TopicImage createTopic(
      String name, int partitions, int replicationFactor, Map<String, String> configs) {
    return createTopic(NewTopic.placed(name, partitions, replicationFactor, configs), false)
        .topic(name)
        .orElseThrow();
  }

  /**
   * Creates {@code topic} (see {@link TopicControl#createTopic(MetadataImage, NewTopic)}); with
   * {@code validateOnly} only checks that it could be created, and commits nothing. Returns the
   * image committed (the current one when only validating).
   */
  public MetadataImage createTopic(NewTopic topic, boolean validateOnly) {
    return run(
        validateOnly,
        "requested: "
            + topic.partitionCount()
            + " partition(s), replication factor "
            + topic.replicationFactorOrFirst()
            + (topic.manuallyAssigned() ? ", placed by hand" : ""),
        image -> topics.createTopic(image, topic));
  }

  public TopicImage createPartitions(String name, int newTotal) {
    return createPartitions(NewPartitions.placed(name, newTotal), false).topic(name).orElseThrow();
  }

  /** Grows a topic; with {@code validateOnly} only checks that it could, and commits nothing. */
  public MetadataImage createPartitions(NewPartitions request, boolean validateOnly) {
    return run(
        validateOnly,
        "requested: "
            + request.totalCount()
            + " partitions in all"
            + (request.assignments().isEmpty() ? "" : ", placed by hand"),
        image -> topics.createPartitions(image, request));
  }

  public void deleteTopic(String name) {
    submit("requested", image -> topics.deleteTopic(image, name));
  }

  public TopicImage alterConfig(String name, String key, String value) {
    return submit("requested", image -> topics.alterConfig(image, name, key, value))
        .topic(name)
        .orElseThrow();
  }

  /**
   * Applies {@code changes} to a topic's configs at once, or none of them (see {@link
   * TopicControl#alterConfigs}); with {@code validateOnly} only checks them.
   */
  public MetadataImage alterConfigs(String name, List<ConfigChange> changes, boolean validateOnly) {
    return run(validateOnly, "requested", image -> topics.alterConfigs(image, name, changes));
  }

  /**
   * Elects the preferred replica leader of {@code partitions} (every partition when null) where it
   * can and need (see {@link PreferredLeaderElection}); returns each partition's outcome, as
   * computed on the image the election committed over.
   */
  public Map<TopicPartition, ElectionOutcome> electPreferredLeaders(
      Collection<TopicPartition> partitions) {
    AtomicReference<Map<TopicPartition, ElectionOutcome>> outcomes = new AtomicReference<>();
    submit(
        "preferred leader election requested",
        image -> {
          PreferredLeaderElection.Result result = PreferredLeaderElection.elect(image, partitions);
          outcomes.set(result.outcomes()); // the last attempt's: the one committed
          return result.records();
        });
    return outcomes.get();
  }

  /**
   * Starts, replaces or cancels (an empty target) the reassignment of each partition in {@code
   * targets} (see {@link ReassignmentControl}); returns each partition's outcome, as computed on
   * the image the change committed over. Partitions refused do not hold back the others.
   */
  public Map<TopicPartition, PartitionOutcome> alterPartitionReassignments(
      Map<TopicPartition, java.util.Optional<List<Integer>>> targets) {
    AtomicReference<Map<TopicPartition, PartitionOutcome>> outcomes = new AtomicReference<>();
    submit(
        "reassignment requested",
        image -> {
          ReassignmentControl.Result result = ReassignmentControl.alter(image, targets);
          outcomes.set(result.outcomes()); // the last attempt's: the one committed
          return result.records();
        });
    return outcomes.get();
  }

  /**
   * Commits what {@code compute} gives and returns the committed image, or with {@code
   * validateOnly} only computes it (throwing if the request is invalid) over the current image.
   */
  private synchronized MetadataImage run(
      boolean validateOnly, String reason, Function<MetadataImage, List<MetadataRecord>> compute) {
    if (!validateOnly) {
      return submit(reason, compute);
    }
    MetadataImage image = quorum.image();
    compute.apply(image);
    return image;
  }

  /** Creates and deletes API keys and ACLs in one commit; returns the committed image. */
  public MetadataImage alterSecurity(dev.tributary.security.SecurityChange change) {
    return submit(image -> SecurityControl.records(image, change));
  }

  /** As {@link #registerBroker(int, Uuid, List, String, long)}, for a broker without a rack. */
  public long registerBroker(
      int brokerId, Uuid incarnationId, List<AdvertisedListener> listeners, long nowMs) {
    return registerBroker(brokerId, incarnationId, listeners, null, nowMs);
  }

  /**
   * Registers {@code incarnationId} as broker {@code brokerId}, advertising {@code listeners}, on
   * {@code rack} (null: none; {@code broker.rack}) (a no-op for a retry of the same incarnation),
   * and returns its broker epoch, which its heartbeats must carry. The registration starts fenced.
   *
   * @throws dev.tributary.common.errors.InvalidRegistrationException if the listeners have no
   *     {@code HTTP} one, repeat a name, or have a bad name, host or port, or the rack is blank,
   *     too long or has control characters
   */
  public long registerBroker(
      int brokerId,
      Uuid incarnationId,
      List<AdvertisedListener> listeners,
      String rack,
      long nowMs) {
    return submit(
            "broker " + brokerId + " registered a new incarnation (the old process is gone)",
            image -> cluster.register(image, brokerId, incarnationId, listeners, rack, nowMs))
        .broker(brokerId)
        .orElseThrow()
        .brokerEpoch();
  }

  /**
   * A heartbeat from registration {@code brokerEpoch} of {@code brokerId}, which has replayed
   * metadata up to {@code brokerMetadataOffset}; returns true while the broker stays fenced (it has
   * not caught up yet).
   *
   * @throws dev.tributary.common.errors.BrokerNotRegisteredException for an unknown broker id
   * @throws dev.tributary.common.errors.StaleBrokerEpochException for another registration's epoch
   */
  public boolean heartbeat(int brokerId, long brokerEpoch, long brokerMetadataOffset, long nowMs) {
    return heartbeat(brokerId, brokerEpoch, brokerMetadataOffset, false, nowMs);
  }

  /**
   * As {@link #heartbeat(int, long, long, long)}, from a broker that says whether its log directory
   * is offline: such a broker is fenced, its leaderships move and it leaves every ISR (see {@link
   * ClusterControl#heartbeat(MetadataImage, int, long, long, boolean, long)}).
   */
  public boolean heartbeat(
      int brokerId,
      long brokerEpoch,
      long brokerMetadataOffset,
      boolean logDirOffline,
      long nowMs) {
    return submit(
            logDirOffline
                ? "broker " + brokerId + " reported its log directory offline"
                : "broker " + brokerId + " unfenced",
            image ->
                cluster
                    .heartbeat(
                        image, brokerId, brokerEpoch, brokerMetadataOffset, logDirOffline, nowMs)
                    .records())
        .broker(brokerId)
        .map(BrokerImage::fenced)
        .orElse(true);
  }

  /**
   * The active controller runs inside broker {@code localBrokerId}'s process, so that broker is
   * alive: its session is renewed at {@code nowMs} as if it had heartbeated. Its heartbeats travel
   * over HTTP like any other broker's, and a stall on that path (its heartbeat thread still waiting
   * on the old controller during a failover) must not make a new controller fence its own broker
   * and move every partition it leads. A registration that is fenced stays fenced: only its own
   * heartbeat unfences it. Does nothing on a member that is not the active controller, or before
   * the broker has registered.
   */
  public synchronized void renewLocalSession(int localBrokerId, long nowMs) {
    if (quorum.isActiveController() && quorum.image().brokers().containsKey(localBrokerId)) {
      cluster.heartbeats().touch(localBrokerId, nowMs);
    }
  }

  /**
   * Fences the brokers whose session expired at {@code nowMs} and moves what they led; returns the
   * delay until this should run again (the next session deadline, at most one session timeout away,
   * so that brokers unfenced meanwhile are watched too). Does nothing on a member that is not the
   * active controller.
   */
  public synchronized long maybeFenceStaleBrokers(long nowMs) {
    long sessionTimeoutMs = cluster.heartbeats().sessionTimeoutMs();
    if (!quorum.isActiveController()) {
      return sessionTimeoutMs;
    }
    MetadataImage image =
        submit(
            "session expired (no heartbeat for " + sessionTimeoutMs + " ms)",
            current -> cluster.fenceStaleBrokers(current, nowMs));
    long next = cluster.nextDeadlineMs(image);
    return next == Long.MAX_VALUE
        ? sessionTimeoutMs
        : Math.max(0, Math.min(next - nowMs, sessionTimeoutMs));
  }

  /**
   * A leader's ISR change (AlterPartition); see {@link IsrControl}. Returns the partition as
   * committed.
   *
   * @throws dev.tributary.common.errors.ApiException the controller's refusal (fenced epoch, stale
   *     partition epoch, ineligible replica, unknown partition)
   */
  public PartitionImage alterPartition(
      Uuid topicId,
      int partition,
      int leaderId,
      int leaderEpoch,
      int partitionEpoch,
      List<Integer> newIsr,
      Map<Integer, Long> brokerEpochs,
      String reason) {
    return submit(
            "proposed by leader "
                + leaderId
                + (reason == null || reason.isBlank() ? "" : ": " + reason),
            image ->
                IsrControl.alterPartition(
                    image,
                    topicId,
                    partition,
                    leaderId,
                    leaderEpoch,
                    partitionEpoch,
                    newIsr,
                    brokerEpochs))
        .topic(topicId)
        .orElseThrow()
        .requirePartition(partition);
  }

  /**
   * Applies {@code changes} to the dynamic configs of {@code brokerId} ({@link
   * MetadataImage#DEFAULT_BROKER}: every broker's default), all or none (see {@link
   * BrokerConfigControl}); with {@code validateOnly} only checks them.
   */
  public MetadataImage alterBrokerConfigs(
      int brokerId, List<ConfigChange> changes, boolean validateOnly) {
    return run(
        validateOnly, "requested", image -> BrokerConfigControl.alter(image, brokerId, changes));
  }

  /**
   * Removes {@code brokerId} from the cluster (see {@link BrokerUnregistration}), then, if it is a
   * listener of the metadata quorum, from the quorum's configuration too (after the commit, and
   * without waiting: a broker that starts again joins again).
   */
  public void unregisterBroker(int brokerId) {
    submit("requested: decommissioned", image -> BrokerUnregistration.records(image, brokerId));
    quorum.removeListener(brokerId);
  }

  /**
   * Fences registration {@code brokerEpoch} of {@code brokerId} now, moving its leaderships and ISR
   * memberships to others first: a controlled shutdown, or a broker found dead before its session
   * ran out.
   */
  public void fenceBroker(int brokerId, long brokerEpoch, String reason) {
    submit(
        "broker " + brokerId + " fenced: " + reason,
        image -> cluster.fenceBroker(image, brokerId, brokerEpoch));
  }

  /**
   * Gives registration {@code brokerEpoch} of {@code brokerId} the next block of producer ids
   * (Kafka's AllocateProducerIds; see {@link ProducerIdControl}); the block is returned once its
   * record is committed, so no other broker, and no later controller, can hand out its ids.
   *
   * @throws dev.tributary.common.errors.BrokerNotRegisteredException for an unknown broker id
   * @throws dev.tributary.common.errors.StaleBrokerEpochException for another registration's epoch
   */
  public ProducerIdsBlock allocateProducerIds(int brokerId, long brokerEpoch) {
    ProducerIdsBlock[] block = new ProducerIdsBlock[1];
    submit(
        image -> {
          ProducerIdControl.Allocation allocation =
              ProducerIdControl.allocate(image, brokerId, brokerEpoch);
          block[0] = allocation.block(); // recomputed with the image if a commit must be retried
          return allocation.records();
        });
    return block[0];
  }

  /**
   * Preferred leader election over every partition (auto.leader.rebalance.enable); a no-op when
   * balanced.
   */
  public synchronized void maybeElectPreferredLeaders() {
    if (quorum.isActiveController()) {
      submit("preferred leader election", ClusterControl::preferredLeaderChanges);
    }
  }

  private static void logPartitionChanges(
      String reason, MetadataImage before, List<MetadataRecord> records) {
    for (MetadataRecord record : records) {
      if (!(record instanceof MetadataRecord.PartitionChange change)) {
        continue;
      }
      TopicImage topic = before.topic(change.topicId()).orElse(null);
      PartitionImage old = topic == null ? null : topic.partitions().get(change.partition());
      if (old == null) {
        continue;
      }
      String tp = topic.name() + "-" + change.partition();
      if (old.leader() != change.leader()) {
        logger.info(
            "Leader of {} moves {} -> {} (leader epoch {}), isr {} -> {}: {}",
            tp,
            old.leader(),
            change.leader(),
            change.leaderEpoch(),
            old.isr(),
            change.isr(),
            reason);
      } else if (!old.isr().equals(change.isr())) {
        logger.info(
            "ISR of {} {} -> {} (partition epoch {}): {}",
            tp,
            old.isr(),
            change.isr(),
            change.partitionEpoch(),
            reason);
      }
    }
  }

  /**
   * This member became the active controller (Raft term {@code controllerEpoch}) at {@code nowMs}
   * (monotonic): every registered broker gets a full session, and the timeline records the election
   * at the wall clock's time, as it does every other event.
   */
  public synchronized void onBecomeActive(int controllerId, long controllerEpoch, long nowMs) {
    cluster.onBecomeActive(quorum.image(), nowMs);
    MetadataImage image = quorum.image();
    try {
      quorum.append(
          image.lastOffset(),
          List.of(
              new MetadataRecord.EventsRecorded(
                  List.of(
                      ClusterEvents.controllerElected(
                          controllerId, controllerEpoch, time.milliseconds())))));
    } catch (RuntimeException e) {
      // Only the timeline misses it (leadership already lost again, or another batch got in first);
      // the
      // controller's duties must not wait on a history entry.
      logger.info(
          "Could not record the election of controller {} (epoch {}) on the timeline: {}",
          controllerId,
          controllerEpoch,
          e.toString());
    }
  }

  /**
   * Puts {@code event} on the cluster's timeline, alone in its batch: something a broker saw that
   * changes no metadata (a replica's truncation).
   */
  public void recordEvent(ClusterEvent event) {
    submit(image -> List.of(new MetadataRecord.EventsRecorded(List.of(event))));
  }

  /**
   * Computes records from the current image and commits them, recomputing if another batch got in
   * first (possible only around a change of controller, since this method is the only writer here).
   */
  private MetadataImage submit(Function<MetadataImage, List<MetadataRecord>> compute) {
    return submit(null, compute);
  }

  /**
   * As {@link #submit(Function)}; once committed, each leader or ISR change is logged with {@code
   * reason} (null: not logged), so that every leadership move can be traced to why it happened. The
   * batch carries its timeline events, which give the same reason.
   */
  private synchronized MetadataImage submit(
      String reason, Function<MetadataImage, List<MetadataRecord>> compute) {
    for (int attempt = 1; ; attempt++) {
      MetadataImage image = quorum.image();
      List<MetadataRecord> records = compute.apply(image);
      if (records.isEmpty()) {
        return image;
      }
      List<ClusterEvent> events =
          ClusterEvents.describe(image, records, reason, time.milliseconds());
      List<MetadataRecord> batch = records;
      if (!events.isEmpty()) {
        batch = new ArrayList<>(records);
        batch.add(new MetadataRecord.EventsRecorded(events));
      }
      try {
        MetadataImage committed = quorum.append(image.lastOffset(), batch);
        if (reason != null) {
          logPartitionChanges(reason, image, records);
        }
        return committed;
      } catch (StaleMetadataException e) {
        if (attempt == MAX_ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
