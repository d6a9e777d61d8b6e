package dev.tributary.metadata;

import dev.tributary.common.Uuid;
import dev.tributary.security.AclBinding;
import dev.tributary.security.ApiKey;
import java.util.List;

/**
 * A change to the cluster metadata. The controller computes these; every broker replays the
 * committed ones, in order, into a {@link MetadataImage}. Nothing else changes metadata (the KRaft
 * pattern: state changes only by replay, identically everywhere). The binary encoding is {@link
 * MetadataRecordSerde}; see docs/adr/0003-metadata-records.md.
 */
public sealed interface MetadataRecord {

  /**
   * A broker announced itself: its id, the incarnation of its process, the listeners it advertises
   * (Kafka's {@code RegisterBrokerRecord.endPoints}), sorted by name, one of them {@code HTTP}
   * ({@link AdvertisedListener#ofRegistration}), and its rack (Kafka's {@code
   * RegisterBrokerRecord.rack}, {@code broker.rack}; null when it has none). On replay the broker's
   * epoch becomes this record's offset (Kafka's broker epoch) and it starts fenced; a registration
   * of a new incarnation replaces the old one the same way.
   */
  record RegisterBroker(
      int brokerId, Uuid incarnationId, List<AdvertisedListener> listeners, String rack)
      implements MetadataRecord {
    public RegisterBroker {
      listeners = AdvertisedListener.ofRegistration(listeners);
    }

    /** A registration without a rack (what record versions 0 and 1 hold). */
    public RegisterBroker(int brokerId, Uuid incarnationId, List<AdvertisedListener> listeners) {
      this(brokerId, incarnationId, listeners, null);
    }

    /** A registration with the one HTTP listener and no rack (what record version 0 holds). */
    public RegisterBroker(int brokerId, Uuid incarnationId, String host, int port) {
      this(brokerId, incarnationId, List.of(AdvertisedListener.http(host, port)));
    }
  }

  /**
   * The broker's registration {@code brokerEpoch} is fenced: it may lead nothing. Replays only if
   * {@code brokerEpoch} is the broker's current epoch; otherwise it is a no-op, so that a late
   * record about a previous incarnation cannot fence the new one.
   */
  record BrokerFenced(int brokerId, long brokerEpoch) implements MetadataRecord {}

  /**
   * The broker's registration {@code brokerEpoch} is unfenced: it may lead. A no-op for any other
   * epoch.
   */
  record BrokerUnfenced(int brokerId, long brokerEpoch) implements MetadataRecord {}

  /**
   * The broker's registration {@code brokerEpoch} is removed from the cluster (Kafka's {@code
   * UnregisterBrokerRecord}): a decommissioned broker that holds no replica. A no-op for any other
   * epoch, so that a late record cannot remove a newer registration. If the broker's process starts
   * again, it registers again.
   */
  record UnregisterBroker(int brokerId, long brokerEpoch) implements MetadataRecord {}

  /**
   * Sets ({@code value} non-null) or removes one dynamic broker config (Kafka's {@code
   * ConfigRecord} for the BROKER resource) of broker {@code brokerId}, or of every broker when it
   * is {@link MetadataImage#DEFAULT_BROKER} (Kafka's resource name ""). Today the replication
   * throttle rates.
   */
  record BrokerConfigChanged(int brokerId, String name, String value) implements MetadataRecord {}

  /**
   * The full state of one registration, epoch and rack included. Written only into snapshots by
   * {@link MetadataImage#toRecords()} (a replayed {@link RegisterBroker} would take the snapshot's
   * offset as its epoch); the controller never computes it. Replay sets the broker to exactly this.
   */
  record BrokerRegistration(
      int brokerId,
      Uuid incarnationId,
      List<AdvertisedListener> listeners,
      long brokerEpoch,
      boolean fenced,
      String rack)
      implements MetadataRecord {
    public BrokerRegistration {
      listeners = AdvertisedListener.ofRegistration(listeners);
    }

    /** A registration without a rack (what record versions 0 and 1 hold). */
    public BrokerRegistration(
        int brokerId,
        Uuid incarnationId,
        List<AdvertisedListener> listeners,
        long brokerEpoch,
        boolean fenced) {
      this(brokerId, incarnationId, listeners, brokerEpoch, fenced, null);
    }

    /** A registration with the one HTTP listener and no rack (what record version 0 holds). */
    public BrokerRegistration(
        int brokerId, Uuid incarnationId, String host, int port, long brokerEpoch, boolean fenced) {
      this(
          brokerId,
          incarnationId,
          List.of(AdvertisedListener.http(host, port)),
          brokerEpoch,
          fenced);
    }
  }

  /**
   * A topic exists with this id and name; its partitions follow as {@link PartitionChange} records.
   */
  record TopicCreated(Uuid topicId, String name) implements MetadataRecord {}

  /**
   * The full state of one partition: replicas, in-sync replicas, leader, leader epoch, partition
   * epoch and, while it is being reassigned (KIP-455), the replicas being added and removed. Both
   * creation and every later change use it.
   *
   * <p>Invariants: {@code leader ∈ isr ⊆ replicas} unless the partition is offline ({@code leader
   * == -1}); the ISR is never empty (an offline partition keeps its last in-sync replica, as Kafka
   * does without unclean election); {@code addingReplicas} and {@code removingReplicas} are
   * disjoint subsets of {@code replicas}, both empty unless a reassignment is in progress. During
   * one, {@code replicas} lists the target replicas first, then the removing ones (Kafka's order),
   * so the preferred leader is the target's first replica.
   */
  record PartitionChange(
      Uuid topicId,
      int partition,
      List<Integer> replicas,
      List<Integer> isr,
      int leader,
      int leaderEpoch,
      int partitionEpoch,
      List<Integer> addingReplicas,
      List<Integer> removingReplicas)
      implements MetadataRecord {
    public PartitionChange {
      replicas = List.copyOf(replicas);
      isr = List.copyOf(isr);
      addingReplicas = List.copyOf(addingReplicas);
      removingReplicas = List.copyOf(removingReplicas);
      if (isr.isEmpty()) {
        throw new IllegalArgumentException(
            "empty isr for partition " + partition + " of " + topicId);
      }
      if (leader != -1 && !isr.contains(leader)) {
        throw new IllegalArgumentException("leader " + leader + " not in isr " + isr);
      }
      if (!replicas.containsAll(isr)) {
        throw new IllegalArgumentException("isr " + isr + " not a subset of replicas " + replicas);
      }
      if (!replicas.containsAll(addingReplicas)
          || !replicas.containsAll(removingReplicas)
          || addingReplicas.stream().anyMatch(removingReplicas::contains)) {
        throw new IllegalArgumentException(
            "adding "
                + addingReplicas
                + " and removing "
                + removingReplicas
                + " must be disjoint subsets of replicas "
                + replicas);
      }
    }

    /** A partition that is not being reassigned. */
    public PartitionChange(
        Uuid topicId,
        int partition,
        List<Integer> replicas,
        List<Integer> isr,
        int leader,
        int leaderEpoch,
        int partitionEpoch) {
      this(
          topicId,
          partition,
          replicas,
          isr,
          leader,
          leaderEpoch,
          partitionEpoch,
          List.of(),
          List.of());
    }
  }

  /**
   * A topic config was set ({@code value != null}) or reset to its default ({@code value == null}).
   */
  record TopicConfigChanged(Uuid topicId, String name, String value) implements MetadataRecord {}

  /** The topic and all its partitions are gone; brokers delete their data for it. */
  record TopicDeleted(Uuid topicId) implements MetadataRecord {}

  /**
   * An API key exists: clients holding its secret authenticate as its principal. Replay replaces a
   * key of the same id (the controller never computes that).
   */
  record ApiKeyCreated(ApiKey key) implements MetadataRecord {}

  /** The API key is gone: its secret no longer authenticates anyone. A no-op if unknown. */
  record ApiKeyDeleted(String keyId) implements MetadataRecord {}

  /** The grant exists (a no-op if it already did). */
  record AclCreated(AclBinding acl) implements MetadataRecord {}

  /** The grant is gone (a no-op if it was not there). */
  record AclDeleted(AclBinding acl) implements MetadataRecord {}

  /**
   * A block of producer ids went to broker {@code brokerId} (registration {@code brokerEpoch}):
   * every id below {@code nextProducerId} not handed out before is now that broker's to give to
   * idempotent producers (Kafka's ProducerIdsRecord, committed for AllocateProducerIds; see {@link
   * ProducerIdControl}). Replay moves the image's next producer id to {@code nextProducerId}, which
   * must be above it: ids are never handed out twice. In a snapshot it carries only the next id
   * (broker id and epoch -1).
   */
  record ProducerIds(int brokerId, long brokerEpoch, long nextProducerId)
      implements MetadataRecord {}

  /**
   * Timeline entries describing the batch this record ends ({@link ClusterEvents#describe}), or, in
   * a snapshot, the retained history. Replay changes no cluster state: it appends {@code events} to
   * the image's bounded history, stamping each unstamped one with this record's offset.
   */
  record EventsRecorded(List<ClusterEvent> events) implements MetadataRecord {
    public EventsRecorded {
      events = List.copyOf(events);
    }
  }
}
