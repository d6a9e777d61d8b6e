package dev.tributary.metadata;

import dev.tributary.common.Uuid;
import dev.tributary.security.AclBinding;
import dev.tributary.security.ApiKey;
import dev.tributary.security.SecurityImage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The cluster metadata as of a point in the metadata log: immutable, so readers on any thread use a
 * snapshot without locks. A new image is made only by {@link #replay}, which is deterministic: the
 * same records in the same order give equal images on every broker.
 *
 * <p>Invariants: topic names and ids are unique; every partition belongs to a topic in the image;
 * {@code nextProducerId} only increases (every id below it went to some broker, docs/adr/0018). The
 * controller keeps two more (checked by ClusterSimulationTest, not here, since replay applies what
 * was committed): a fenced broker leads no partition, and every partition's ISR is non-empty.
 */
public record MetadataImage(
    long lastOffset,
    SortedMap<String, TopicImage> topicsByName,
    Map<Uuid, String> topicNamesById,
    SortedMap<Integer, BrokerImage> brokers,
    List<ClusterEvent> events,
    SecurityImage security,
    long nextProducerId,
    SortedMap<Integer, Map<String, String>> brokerConfigs) {

  public static final MetadataImage EMPTY =
      new MetadataImage(
          -1, new TreeMap<>(), new HashMap<>(), new TreeMap<>(), List.of(), SecurityImage.EMPTY, 0);

  /** The key of {@link #brokerConfigs} for the cluster-wide default (Kafka's resource name ""). */
  public static final int DEFAULT_BROKER = -1;

  /**
   * @param events the timeline: the last {@link ClusterEvents#MAX_RETAINED} events, in metadata-log
   *     order
   * @param nextProducerId the first producer id no broker has been given yet (Kafka's
   *     ProducerIdsImage)
   * @param brokerConfigs dynamic broker configs by broker id ({@link #DEFAULT_BROKER}: every
   *     broker's default), Kafka's ConfigurationsImage for the BROKER resource
   */
  public MetadataImage {
    TreeMap<Integer, Map<String, String>> configs = new TreeMap<>();
    (brokerConfigs == null ? Map.<Integer, Map<String, String>>of() : brokerConfigs)
        .forEach((id, values) -> configs.put(id, Map.copyOf(values)));
    brokerConfigs = Collections.unmodifiableSortedMap(configs);
    topicsByName = Collections.unmodifiableSortedMap(new TreeMap<>(topicsByName));
    topicNamesById = Map.copyOf(topicNamesById);
    brokers = Collections.unmodifiableSortedMap(new TreeMap<>(brokers));
    events = List.copyOf(events);
    security = security == null ? SecurityImage.EMPTY : security;
  }

  /** An image without dynamic broker configs. */
  public MetadataImage(
      long lastOffset,
      SortedMap<String, TopicImage> topicsByName,
      Map<Uuid, String> topicNamesById,
      SortedMap<Integer, BrokerImage> brokers,
      List<ClusterEvent> events,
      SecurityImage security,
      long nextProducerId) {
    this(
        lastOffset,
        topicsByName,
        topicNamesById,
        brokers,
        events,
        security,
        nextProducerId,
        new TreeMap<>());
  }

  /** An image whose producer ids were never allocated (tests, tools). */
  public MetadataImage(
      long lastOffset,
      SortedMap<String, TopicImage> topicsByName,
      Map<Uuid, String> topicNamesById,
      SortedMap<Integer, BrokerImage> brokers,
      List<ClusterEvent> events,
      SecurityImage security) {
    this(lastOffset, topicsByName, topicNamesById, brokers, events, security, 0);
  }

  /** An image with no API keys or ACLs. */
  public MetadataImage(
      long lastOffset,
      SortedMap<String, TopicImage> topicsByName,
      Map<Uuid, String> topicNamesById,
      SortedMap<Integer, BrokerImage> brokers,
      List<ClusterEvent> events) {
    this(lastOffset, topicsByName, topicNamesById, brokers, events, SecurityImage.EMPTY);
  }

  /** An image with no timeline (tests). */
  public MetadataImage(
      long lastOffset,
      SortedMap<String, TopicImage> topicsByName,
      Map<Uuid, String> topicNamesById,
      SortedMap<Integer, BrokerImage> brokers) {
    this(lastOffset, topicsByName, topicNamesById, brokers, List.of());
  }

  public Optional<TopicImage> topic(String name) {
    return Optional.ofNullable(topicsByName.get(name));
  }

  public Optional<TopicImage> topic(Uuid topicId) {
    String name = topicNamesById.get(topicId);
    return name == null ? Optional.empty() : topic(name);
  }

  /**
   * Dynamic config {@code name} of broker {@code brokerId}: its own value, else the cluster-wide
   * default, else empty (the broker's static setting applies).
   */
  public Optional<String> brokerConfig(int brokerId, String name) {
    String own = brokerConfigs.getOrDefault(brokerId, Map.of()).get(name);
    return Optional.ofNullable(
        own != null ? own : brokerConfigs.getOrDefault(DEFAULT_BROKER, Map.of()).get(name));
  }

  public Optional<BrokerImage> broker(int brokerId) {
    return Optional.ofNullable(brokers.get(brokerId));
  }

  /**
   * Ids of the registered brokers that are not fenced, ascending: the brokers that may lead and get
   * replicas.
   */
  public List<Integer> unfencedBrokerIds() {
    return brokers.values().stream().filter(b -> !b.fenced()).map(BrokerImage::brokerId).toList();
  }

  /**
   * The rack of every registered broker that has one ({@code broker.rack}), by broker id; brokers
   * without a rack are absent.
   */
  public SortedMap<Integer, String> brokerRacks() {
    SortedMap<Integer, String> racks = new TreeMap<>();
    brokers.values().forEach(b -> b.rack().ifPresent(rack -> racks.put(b.brokerId(), rack)));
    return racks;
  }

  /** True if {@code brokerId} is registered and not fenced. */
  public boolean isUnfenced(int brokerId) {
    BrokerImage broker = brokers.get(brokerId);
    return broker != null && !broker.fenced();
  }

  /**
   * Applies one committed record at metadata-log offset {@code offset} and returns the next image.
   */
  public MetadataImage replay(long offset, MetadataRecord record) {
    if (record instanceof MetadataRecord.EventsRecorded r) {
      // Only the timeline changes: skip copying the maps (this follows every batch the controller
      // commits).
      return new MetadataImage(
          offset,
          topicsByName,
          topicNamesById,
          brokers,
          ClusterEvents.append(events, r.events(), offset),
          security,
          nextProducerId,
          brokerConfigs);
    }
    if (record instanceof MetadataRecord.ProducerIds r) {
      if (r.nextProducerId() <= nextProducerId) {
        throw new IllegalStateException(
            "replayed producer ids up to "
                + r.nextProducerId()
                + " at offset "
                + offset
                + ", not above the next producer id "
                + nextProducerId);
      }
      return new MetadataImage(
          offset,
          topicsByName,
          topicNamesById,
          brokers,
          events,
          security,
          r.nextProducerId(),
          brokerConfigs);
    }
    if (record instanceof MetadataRecord.BrokerConfigChanged r) {
      TreeMap<Integer, Map<String, String>> configs = new TreeMap<>(brokerConfigs);
      Map<String, String> values = new HashMap<>(configs.getOrDefault(r.brokerId(), Map.of()));
      if (r.value() == null) {
        values.remove(r.name());
      } else {
        values.put(r.name(), r.value());
      }
      if (values.isEmpty()) {
        configs.remove(r.brokerId());
      } else {
        configs.put(r.brokerId(), values);
      }
      return new MetadataImage(
          offset, topicsByName, topicNamesById, brokers, events, security, nextProducerId, configs);
    }
    if (record instanceof MetadataRecord.ApiKeyCreated
        || record instanceof MetadataRecord.ApiKeyDeleted
        || record instanceof MetadataRecord.AclCreated
        || record instanceof MetadataRecord.AclDeleted) {
      return new MetadataImage(
          offset,
          topicsByName,
          topicNamesById,
          brokers,
          events,
          replaySecurity(record),
          nextProducerId,
          brokerConfigs);
    }
    TreeMap<String, TopicImage> topics = new TreeMap<>(topicsByName);
    HashMap<Uuid, String> names = new HashMap<>(topicNamesById);
    TreeMap<Integer, BrokerImage> nextBrokers = new TreeMap<>(brokers);
    if (record instanceof MetadataRecord.RegisterBroker r) {
      // The record's offset is the registration's epoch; a new registration always starts fenced.
      nextBrokers.put(
          r.brokerId(),
          new BrokerImage(
              r.brokerId(),
              r.incarnationId(),
              r.listeners(),
              offset,
              true,
              Optional.ofNullable(r.rack())));
    } else if (record instanceof MetadataRecord.BrokerFenced r) {
      setFenced(nextBrokers, r.brokerId(), r.brokerEpoch(), true);
    } else if (record instanceof MetadataRecord.BrokerUnfenced r) {
      setFenced(nextBrokers, r.brokerId(), r.brokerEpoch(), false);
    } else if (record instanceof MetadataRecord.UnregisterBroker r) {
      BrokerImage broker = nextBrokers.get(r.brokerId());
      if (broker != null && broker.brokerEpoch() == r.brokerEpoch()) {
        nextBrokers.remove(r.brokerId());
      }
    } else if (record instanceof MetadataRecord.BrokerRegistration r) {
      nextBrokers.put(
          r.brokerId(),
          new BrokerImage(
              r.brokerId(),
              r.incarnationId(),
              r.listeners(),
              r.brokerEpoch(),
              r.fenced(),
              Optional.ofNullable(r.rack())));
    } else if (record instanceof MetadataRecord.TopicCreated r) {
      if (topics.containsKey(r.name()) || names.containsKey(r.topicId())) {
        throw new IllegalStateException(
            "replayed a duplicate topic " + r.name() + " at offset " + offset);
      }
      topics.put(r.name(), new TopicImage(r.topicId(), r.name(), new TreeMap<>(), Map.of()));
      names.put(r.topicId(), r.name());
    } else if (record instanceof MetadataRecord.PartitionChange r) {
      TopicImage topic = requireTopic(names, topics, r.topicId(), offset);
      topics.put(topic.name(), topic.withPartition(PartitionImage.of(r)));
    } else if (record instanceof MetadataRecord.TopicConfigChanged r) {
      TopicImage topic = requireTopic(names, topics, r.topicId(), offset);
      topics.put(topic.name(), topic.withConfig(r.name(), r.value()));
    } else if (record instanceof MetadataRecord.TopicDeleted r) {
      TopicImage topic = requireTopic(names, topics, r.topicId(), offset);
      topics.remove(topic.name());
      names.remove(r.topicId());
    } else {
      throw new IllegalArgumentException("unknown metadata record " + record);
    }
    return new MetadataImage(
        offset, topics, names, nextBrokers, events, security, nextProducerId, brokerConfigs);
  }

  private SecurityImage replaySecurity(MetadataRecord record) {
    if (record instanceof MetadataRecord.ApiKeyCreated r) {
      return security.withApiKey(r.key());
    } else if (record instanceof MetadataRecord.ApiKeyDeleted r) {
      return security.withoutApiKey(r.keyId());
    } else if (record instanceof MetadataRecord.AclCreated r) {
      return security.withAcl(r.acl());
    } else if (record instanceof MetadataRecord.AclDeleted r) {
      return security.withoutAcl(r.acl());
    }
    throw new IllegalArgumentException("not a security record: " + record);
  }

  /**
   * Records that replay, from {@link #EMPTY}, into an image equal to this one except for {@link
   * #lastOffset} (see {@link #withLastOffset}). A snapshot is these records plus the last offset.
   * Keep in step with {@link #replay}: every piece of state must come back.
   */
  public List<MetadataRecord> toRecords() {
    List<MetadataRecord> records = new ArrayList<>();
    for (BrokerImage b : brokers.values()) {
      records.add(
          new MetadataRecord.BrokerRegistration(
              b.brokerId(),
              b.incarnationId(),
              b.listeners(),
              b.brokerEpoch(),
              b.fenced(),
              b.rack().orElse(null)));
    }
    for (TopicImage topic : topicsByName.values()) {
      records.add(new MetadataRecord.TopicCreated(topic.topicId(), topic.name()));
      new TreeMap<>(topic.configs())
          .forEach(
              (key, value) ->
                  records.add(new MetadataRecord.TopicConfigChanged(topic.topicId(), key, value)));
      for (PartitionImage p : topic.partitions().values()) {
        records.add(
            p.change(topic.topicId(), p.isr(), p.leader(), p.leaderEpoch(), p.partitionEpoch()));
      }
    }
    for (ApiKey key : security.apiKeys().values()) {
      records.add(new MetadataRecord.ApiKeyCreated(key));
    }
    for (AclBinding acl : security.acls()) {
      records.add(new MetadataRecord.AclCreated(acl));
    }
    if (nextProducerId > 0) {
      records.add(new MetadataRecord.ProducerIds(-1, -1, nextProducerId));
    }
    brokerConfigs.forEach(
        (id, values) ->
            new TreeMap<>(values)
                .forEach(
                    (name, value) ->
                        records.add(new MetadataRecord.BrokerConfigChanged(id, name, value))));
    if (!events.isEmpty()) {
      records.add(new MetadataRecord.EventsRecorded(events));
    }
    return records;
  }

  /** The same state at another offset: used when an image is rebuilt from a snapshot's records. */
  public MetadataImage withLastOffset(long offset) {
    return new MetadataImage(
        offset,
        topicsByName,
        topicNamesById,
        brokers,
        events,
        security,
        nextProducerId,
        brokerConfigs);
  }

  /**
   * Sets the fenced flag of registration {@code brokerEpoch}. A record about another epoch (a
   * previous incarnation's, committed late) or an unknown broker is a no-op: it must not fence the
   * current registration.
   */
  private static void setFenced(
      Map<Integer, BrokerImage> brokers, int brokerId, long brokerEpoch, boolean fenced) {
    BrokerImage current = brokers.get(brokerId);
    if (current != null && current.brokerEpoch() == brokerEpoch) {
      brokers.put(brokerId, current.withFenced(fenced));
    }
  }

  private static TopicImage requireTopic(
      Map<Uuid, String> names, Map<String, TopicImage> topics, Uuid topicId, long offset) {
    String name = names.get(topicId);
    if (name == null) {
      throw new IllegalStateException(
          "record at offset " + offset + " names unknown topic id " + topicId);
    }
    return topics.get(name);
  }
}
