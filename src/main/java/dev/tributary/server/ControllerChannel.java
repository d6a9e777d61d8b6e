package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.metadata.ConfigChange;
import dev.tributary.metadata.ElectionOutcome;
import dev.tributary.metadata.NewPartitions;
import dev.tributary.metadata.NewTopic;
import dev.tributary.metadata.PartitionOutcome;
import dev.tributary.metadata.ProducerIdsBlock;
import dev.tributary.replication.Truncation;
import java.util.List;
import java.util.Map;

/**
 * What a broker asks of the active controller: registration, heartbeats, and admin requests it
 * forwards. Calls block for at most the channel's timeout. Failures surface as the core's
 * exceptions: {@link dev.tributary.common.errors.NotControllerException} when the target no longer
 * leads (the caller looks up the controller again), other {@link
 * dev.tributary.common.errors.ApiException}s as the controller raised them, and {@link
 * ControllerUnreachableException} when nothing answered.
 */
public interface ControllerChannel {
  RegistrationResult register(Endpoint controller, BrokerRegistration registration);

  HeartbeatResult heartbeat(Endpoint controller, BrokerHeartbeat heartbeat);

  /** Creates a topic; with {@code validateOnly} only checks that the controller would. */
  AdminResult createTopic(Endpoint controller, NewTopic topic, boolean validateOnly);

  /** Grows a topic; with {@code validateOnly} only checks that the controller would. */
  AdminResult createPartitions(Endpoint controller, NewPartitions request, boolean validateOnly);

  AdminResult deleteTopic(Endpoint controller, String name);

  /**
   * Changes broker {@code brokerId}'s dynamic configs (-1: every broker's default), all or none.
   */
  AdminResult alterBrokerConfigs(
      Endpoint controller, int brokerId, List<ConfigChange> changes, boolean validateOnly);

  /** Removes a decommissioned broker (fenced, holding no replica) from the cluster. */
  AdminResult unregisterBroker(Endpoint controller, int brokerId);

  /** Applies config changes to a topic, all or none; with {@code validateOnly} only checks them. */
  AdminResult alterConfigs(
      Endpoint controller, String name, List<ConfigChange> changes, boolean validateOnly);

  /**
   * Elects the preferred leader of {@code partitions} (every partition when null) where it can and
   * need; answers each partition's outcome.
   */
  ElectionResult electPreferredLeaders(Endpoint controller, List<TopicPartition> partitions);

  /**
   * Starts, replaces or cancels (an empty target) the reassignment of each partition in {@code
   * targets} (see {@link dev.tributary.metadata.ReassignmentControl}); answers each partition's
   * outcome.
   */
  ReassignmentResult alterPartitionReassignments(
      Endpoint controller, Map<TopicPartition, java.util.Optional<List<Integer>>> targets);

  /** Creates and deletes API keys and ACLs (an admin request). */
  AdminResult alterSecurity(Endpoint controller, dev.tributary.security.SecurityChange change);

  /** A leader's ISR change; fails with the controller's refusal as the core's exception. */
  AdminResult alterPartition(Endpoint controller, AlterPartition request);

  /**
   * Fences a registration now, moving its leaderships away first: a broker's own controlled
   * shutdown (after it stopped heartbeating).
   */
  AdminResult fenceBroker(Endpoint controller, int brokerId, long brokerEpoch);

  /**
   * The next block of producer ids for registration {@code brokerEpoch} of {@code brokerId}
   * (Kafka's AllocateProducerIds), committed before it is answered; fails with STALE_BROKER_EPOCH
   * or BROKER_ID_NOT_REGISTERED for a registration that is not current.
   */
  ProducerIdsBlock allocateProducerIds(Endpoint controller, int brokerId, long brokerEpoch);

  /**
   * {@code reporterId} could not connect to {@code brokerId}: the controller checks for itself and
   * fences the broker at once if nothing listens on its port any more (see
   * docs/adr/0010-failure-detection.md).
   */
  void reportUnreachable(Endpoint controller, int reporterId, int brokerId);

  /**
   * A replica dropped records its leader never had: the controller records it on the cluster's
   * timeline (nothing else changes).
   */
  void reportTruncation(Endpoint controller, Truncation truncation);

  /**
   * A fault injected on purpose (the dashboard cut a broker's links, or healed them): the
   * controller records it on the cluster's timeline (nothing else changes).
   */
  void reportFault(Endpoint controller, FaultReport fault);

  /**
   * What was injected: {@code text} says it, on broker {@code brokerId} (-1: the whole network),
   * done as {@code how} says (e.g. "the dashboard's action, through broker 2").
   */
  record FaultReport(int brokerId, String text, String how) {
    public FaultReport {
      if (text == null || text.isBlank()) {
        throw new IllegalArgumentException("a fault report needs a text");
      }
      if (brokerId < -1) {
        throw new IllegalArgumentException("broker id " + brokerId);
      }
    }
  }

  /** An ISR change for one partition; see {@link dev.tributary.metadata.IsrControl}. */
  record AlterPartition(
      String topicId,
      String topic,
      int partition,
      int leaderId,
      int leaderEpoch,
      int partitionEpoch,
      java.util.List<Integer> newIsr,
      Map<Integer, Long> brokerEpochs,
      String reason) {}

  /** Where a broker serves HTTP. */
  record Endpoint(int brokerId, String host, int port) {}

  /**
   * A broker announcing itself: its id, the incarnation of this process, the listeners it
   * advertises (one named {@code HTTP}, or the controller refuses it with INVALID_REGISTRATION),
   * and its rack ({@code broker.rack}; null when it has none).
   */
  record BrokerRegistration(
      int brokerId, String incarnationId, List<AdvertisedListener> listeners, String rack) {
    public BrokerRegistration {
      listeners = List.copyOf(listeners);
    }

    /** A broker without a rack. */
    public BrokerRegistration(
        int brokerId, String incarnationId, List<AdvertisedListener> listeners) {
      this(brokerId, incarnationId, listeners, null);
    }
  }

  /**
   * @param brokerEpoch the epoch the controller gave this incarnation at registration
   * @param metadataOffset the controller's last metadata offset when it answered: the broker has
   *     caught up once its own image reaches it
   */
  record RegistrationResult(long brokerEpoch, long metadataOffset) {}

  /**
   * A heartbeat: who, which registration, how far this broker's metadata image has got, and whether
   * its log directory is offline (Kafka's offlineLogDirs; one directory here, so a flag).
   */
  record BrokerHeartbeat(
      int brokerId, long brokerEpoch, long metadataOffset, boolean logDirOffline) {
    public BrokerHeartbeat(int brokerId, long brokerEpoch, long metadataOffset) {
      this(brokerId, brokerEpoch, metadataOffset, false);
    }
  }

  /**
   * The controller's answer: whether the broker is (still) fenced, and the controller's metadata
   * offset.
   */
  record HeartbeatResult(boolean fenced, long metadataOffset) {}

  /**
   * An admin request was committed at {@code metadataOffset}; the caller waits until its image
   * reaches it.
   */
  record AdminResult(long metadataOffset) {}

  /**
   * A preferred leader election committed at {@code metadataOffset}, with each partition's outcome
   * (see {@link dev.tributary.metadata.PreferredLeaderElection}).
   */
  record ElectionResult(long metadataOffset, Map<TopicPartition, ElectionOutcome> outcomes) {
    public ElectionResult {
      outcomes = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(outcomes));
    }
  }

  /** Reassignments committed at {@code metadataOffset}, with each partition's outcome. */
  record ReassignmentResult(long metadataOffset, Map<TopicPartition, PartitionOutcome> outcomes) {
    public ReassignmentResult {
      outcomes = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(outcomes));
    }
  }
}
