package dev.tributary.server;

import dev.tributary.common.TopicName;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.common.errors.InvalidTopicException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.LogConfig;
import dev.tributary.metadata.BrokerConfigControl;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.TopicImage;
import dev.tributary.replication.ReplicationConfig;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Topic and broker configs as Kafka's DescribeConfigs tells them: every config with its effective
 * value, where that value comes from, its type, a line of documentation and, on request, its
 * synonyms (the same setting under the broker's name). Read-only; the configs change through {@link
 * AdminService}.
 *
 * <ul>
 *   <li>A topic's configs are {@link LogConfig}'s: its own value ({@link
 *       Source#DYNAMIC_TOPIC_CONFIG}) or Kafka's default ({@link Source#DEFAULT_CONFIG}, the
 *       broker-level name, e.g. {@code log.retention.ms}, as its synonym). Tributary has no broker
 *       settings that topics fall back to: a broker's {@code min.insync.replicas} is written into a
 *       topic when it is created, so it shows as the topic's own value.
 *   <li>A broker's configs are what it was started with ({@link Source#STATIC_BROKER_CONFIG}), all
 *       read-only (Tributary changes no broker setting at run time), plus the topic defaults under
 *       their broker names ({@link Source#DEFAULT_CONFIG}). The cluster secret is sensitive: named,
 *       never shown.
 * </ul>
 *
 * Describing a topic's configs needs READ on the topic (as REST's {@code GET .../configs}); a
 * broker's, READ on the cluster (Kafka's DESCRIBE_CONFIGS on the cluster).
 */
public final class ConfigDescriptions {
  /** Kafka's {@code ConfigSource}s that Tributary's configs can come from. */
  public enum Source {
    /** Set on the topic (Kafka's {@code TOPIC_CONFIG}). */
    DYNAMIC_TOPIC_CONFIG,
    /** From the broker's configuration at startup. */
    STATIC_BROKER_CONFIG,
    /** Set at run time for this broker (Kafka's {@code DYNAMIC_BROKER_CONFIG}). */
    DYNAMIC_BROKER_CONFIG,
    /** Set at run time for every broker (Kafka's {@code DYNAMIC_DEFAULT_BROKER_CONFIG}). */
    DYNAMIC_DEFAULT_BROKER_CONFIG,
    /** Nobody set it: Kafka's default. */
    DEFAULT_CONFIG
  }

  /** Kafka's {@code ConfigType}s that Tributary's configs have. */
  public enum Type {
    BOOLEAN,
    STRING,
    INT,
    LONG,
    DOUBLE,
    LIST,
    /** Sensitive: the value is never shown. */
    PASSWORD
  }

  /** The same setting under another name, and where its value comes from. */
  public record Synonym(String name, String value, Source source) {}

  /**
   * One config as described.
   *
   * @param value null when {@code sensitive}
   * @param synonyms the config itself and the names it falls back to, most specific first
   */
  public record ConfigEntry(
      String name,
      String value,
      Source source,
      boolean readOnly,
      boolean sensitive,
      Type type,
      String documentation,
      List<Synonym> synonyms) {
    public ConfigEntry {
      synonyms = List.copyOf(synonyms);
    }
  }

  /**
   * Each topic config's broker-level name (Kafka's {@code ServerTopicConfigSynonyms}) and what it
   * does; every {@link LogConfig} name is here (ConfigDescriptionsTest checks).
   */
  private static final Map<String, Described> TOPIC_CONFIGS =
      Map.ofEntries(
          topic(
              LogConfig.CLEANUP_POLICY,
              "log.cleanup.policy",
              "delete (by retention.ms and retention.bytes), compact (keep the last record per key),"
                  + " or both"),
          topic(
              LogConfig.COMPRESSION_TYPE,
              "compression.type",
              "Only producer: batches are stored as the producer compressed them"),
          topic(
              LogConfig.RETENTION_MS,
              "log.retention.ms",
              "How long a segment is kept after its last record's timestamp; -1 keeps it forever"),
          topic(
              LogConfig.RETENTION_BYTES,
              "log.retention.bytes",
              "The most bytes a partition keeps before deleting old segments; -1: no limit"),
          topic(LogConfig.SEGMENT_BYTES, "log.segment.bytes", "The size at which a segment rolls"),
          topic(LogConfig.SEGMENT_MS, "log.roll.ms", "The age at which a segment rolls"),
          topic(
              LogConfig.SEGMENT_INDEX_BYTES,
              "log.index.size.max.bytes",
              "The size of a segment's offset and time indexes"),
          topic(
              LogConfig.INDEX_INTERVAL_BYTES,
              "log.index.interval.bytes",
              "Bytes between two offset index entries"),
          topic(
              LogConfig.MAX_MESSAGE_BYTES,
              "message.max.bytes",
              "The largest record batch the topic accepts"),
          topic(
              LogConfig.FLUSH_MESSAGES,
              "log.flush.interval.messages",
              "Records appended between two forced flushes to disk"),
          topic(
              LogConfig.FLUSH_MS,
              "log.flush.interval.ms",
              "Time between two forced flushes to disk"),
          topic(
              LogConfig.FILE_DELETE_DELAY_MS,
              "log.segment.delete.delay.ms",
              "Accepted for compatibility; segments are deleted at once"),
          topic(
              LogConfig.MESSAGE_TIMESTAMP_TYPE,
              "log.message.timestamp.type",
              "CreateTime (the producer's timestamp) or LogAppendTime (the broker's)"),
          topic(
              LogConfig.MIN_IN_SYNC_REPLICAS,
              "min.insync.replicas",
              "The in-sync replicas an acks=all produce needs"),
          topic(
              LogConfig.UNCLEAN_LEADER_ELECTION_ENABLE,
              "unclean.leader.election.enable",
              "Let an out-of-sync replica lead when no in-sync one is alive, losing records"),
          topic(
              LogConfig.DELETE_RETENTION_MS,
              "log.cleaner.delete.retention.ms",
              "How long a compacted topic keeps a tombstone"),
          topic(
              LogConfig.MIN_CLEANABLE_DIRTY_RATIO,
              "log.cleaner.min.cleanable.ratio",
              "The share of uncompacted bytes at which the cleaner compacts a log"),
          topic(
              LogConfig.MIN_COMPACTION_LAG_MS,
              "log.cleaner.min.compaction.lag.ms",
              "The least time a record stays uncompacted"),
          topic(
              LogConfig.MAX_COMPACTION_LAG_MS,
              "log.cleaner.max.compaction.lag.ms",
              "The most time a record may stay uncompacted"),
          topic(
              LogConfig.PRODUCER_ID_EXPIRATION_MS,
              "producer.id.expiration.ms",
              "How long a producer id's state is kept after its last write"),
          topic(
              LogConfig.LEADER_REPLICATION_THROTTLED_REPLICAS,
              LogConfig.LEADER_REPLICATION_THROTTLED_REPLICAS,
              "Replicas (partition:broker, or *) whose leader holds copying to out-of-sync followers"
                  + " to leader.replication.throttled.rate"),
          topic(
              LogConfig.FOLLOWER_REPLICATION_THROTTLED_REPLICAS,
              LogConfig.FOLLOWER_REPLICATION_THROTTLED_REPLICAS,
              "Replicas (partition:broker, or *) that, out of sync, fetch at most"
                  + " follower.replication.throttled.rate"));

  private final MetadataCache metadata;
  private final AccessControl access;

  public ConfigDescriptions(MetadataCache metadata, AccessControl access) {
    this.metadata = metadata;
    this.access = access;
  }

  /**
   * Every config of {@code topic}, in {@link LogConfig}'s order.
   *
   * @throws dev.tributary.common.errors.AuthorizationException without READ on the topic
   * @throws InvalidTopicException for a name no topic can have
   * @throws UnknownTopicOrPartitionException for a topic that does not exist
   */
  public List<ConfigEntry> topicConfigs(RequestContext context, String topic) {
    access.require(context, AclOperation.READ, ResourceType.TOPIC, topic);
    String problem = TopicName.problemWith(topic);
    if (problem != null) {
      throw new InvalidTopicException(problem);
    }
    TopicImage image =
        metadata
            .metadata()
            .topic(topic)
            .orElseThrow(() -> UnknownTopicOrPartitionException.unknownTopic(topic));
    return topicConfigs(image.configs());
  }

  /**
   * Every config of a topic whose own settings are {@code overrides} (one about to be created), in
   * {@link LogConfig}'s order.
   *
   * @throws dev.tributary.log.InvalidConfigException if the overrides are invalid
   */
  public static List<ConfigEntry> topicConfigs(Map<String, String> overrides) {
    List<ConfigEntry> entries = new ArrayList<>();
    LogConfig.fromMap(overrides)
        .toMap()
        .forEach(
            (name, value) -> {
              Described described = TOPIC_CONFIGS.get(name);
              Synonym fallback =
                  new Synonym(
                      described.brokerName(), LogConfig.defaultValue(name), Source.DEFAULT_CONFIG);
              List<Synonym> synonyms =
                  overrides.containsKey(name)
                      ? List.of(new Synonym(name, value, Source.DYNAMIC_TOPIC_CONFIG), fallback)
                      : List.of(fallback);
              entries.add(
                  new ConfigEntry(
                      name,
                      value,
                      synonyms.get(0).source(),
                      false,
                      false,
                      Type.valueOf(LogConfig.type(name).name()),
                      described.documentation(),
                      synonyms));
            });
    return entries;
  }

  /**
   * Every config of the broker named {@code brokerName} (its id), which must be this one: each
   * broker describes its own, as in Kafka. The empty name stands for the cluster-wide defaults set
   * at run time, of which Tributary has none.
   *
   * @throws dev.tributary.common.errors.AuthorizationException without READ on the cluster
   * @throws InvalidRequestException for a name that is not an id, or another broker's id
   */
  public List<ConfigEntry> brokerConfigs(RequestContext context, String brokerName) {
    access.require(context, AclOperation.READ, ResourceType.CLUSTER, AccessControl.clusterName());
    MetadataImage image = metadata.metadata();
    if (brokerName == null || brokerName.isEmpty()) {
      List<ConfigEntry> defaults = new ArrayList<>();
      for (String name :
          new java.util.TreeSet<>(
              image
                  .brokerConfigs()
                  .getOrDefault(MetadataImage.DEFAULT_BROKER, Map.of())
                  .keySet())) {
        defaults.add(dynamicBrokerConfig(image, MetadataImage.DEFAULT_BROKER, name));
      }
      return defaults;
    }
    BrokerConfig config = metadata.config();
    if (!brokerName.equals(String.valueOf(config.brokerId()))) {
      try {
        Integer.parseInt(brokerName);
      } catch (NumberFormatException e) {
        throw new InvalidRequestException("Broker id must be an integer, but it is: " + brokerName);
      }
      throw new InvalidRequestException(
          "Unexpected broker id, expected "
              + config.brokerId()
              + " or empty string, but received "
              + brokerName);
    }
    ReplicationConfig replication = config.replication();
    List<ConfigEntry> entries = new ArrayList<>();
    configured(entries, "node.id", config.brokerId(), Type.INT, "This broker's id");
    configured(entries, "broker.id", config.brokerId(), Type.INT, "This broker's id");
    configured(entries, "log.dirs", config.logDir(), Type.STRING, "Where the logs live");
    configured(
        entries,
        "advertised.listeners",
        config.listeners().stream()
            .map(l -> l.name() + "://" + l.host() + ":" + l.port())
            .collect(Collectors.joining(",")),
        Type.STRING,
        "The listeners clients and brokers are told to connect to");
    configured(
        entries,
        "controller.quorum.voters",
        config.quorumVoters(),
        Type.LIST,
        "The metadata quorum's voters, id@host:port; empty: this broker is its own controller");
    configured(
        entries,
        "auto.create.topics.enable",
        config.autoCreateTopicsEnable(),
        Type.BOOLEAN,
        "Producing to or asking metadata of a missing topic creates it");
    configured(
        entries,
        "num.partitions",
        config.numPartitions(),
        Type.INT,
        "Partitions of a topic created without a count");
    configured(
        entries,
        "default.replication.factor",
        config.defaultReplicationFactor(),
        Type.INT,
        "Replicas of a topic created without a replication factor");
    configured(
        entries,
        LogConfig.MIN_IN_SYNC_REPLICAS,
        config.minInsyncReplicas(),
        Type.INT,
        "min.insync.replicas written into topics created without one");
    configured(
        entries,
        "request.timeout.ms",
        config.requestTimeoutMs(),
        Type.INT,
        "How long an acks=all produce waits for replication");
    configured(
        entries,
        "log.retention.check.interval.ms",
        config.logPeriodicTaskIntervalMs(),
        Type.LONG,
        "How often retention, time-based flushes and checkpoints run");
    configured(
        entries,
        "broker.heartbeat.interval.ms",
        config.brokerHeartbeatIntervalMs(),
        Type.INT,
        "How often this broker heartbeats the controller");
    configured(
        entries,
        "broker.session.timeout.ms",
        config.brokerSessionTimeoutMs(),
        Type.INT,
        "How long the controller waits for a heartbeat before fencing a broker");
    configured(
        entries,
        "replica.lag.time.max.ms",
        replication.replicaLagTimeMaxMs(),
        Type.LONG,
        "A follower not caught up for this long leaves the ISR");
    configured(
        entries,
        "replica.fetch.wait.max.ms",
        replication.replicaFetchWaitMaxMs(),
        Type.INT,
        "How long a leader holds a follower's fetch when there is nothing new");
    configured(
        entries,
        "replica.fetch.max.bytes",
        replication.replicaFetchPartitionMaxBytes(),
        Type.INT,
        "Bytes per partition in a follower's fetch");
    configured(
        entries,
        "replica.fetch.response.max.bytes",
        replication.replicaFetchMaxBytes(),
        Type.INT,
        "Bytes per follower fetch response");
    configured(
        entries,
        "replica.fetch.backoff.ms",
        replication.replicaFetchBackoffMs(),
        Type.INT,
        "Pause after a failed follower fetch");
    configured(
        entries,
        "auto.leader.rebalance.enable",
        config.autoLeaderRebalanceEnable(),
        Type.BOOLEAN,
        "The controller gives leadership back to preferred replicas");
    configured(
        entries,
        "leader.imbalance.check.interval.seconds",
        config.leaderImbalanceCheckIntervalMs() / 1000,
        Type.LONG,
        "How often the controller checks for leaders to give back");
    entries.add(
        new ConfigEntry(
            "tributary.cluster-secret",
            null,
            Source.STATIC_BROKER_CONFIG,
            true,
            true,
            Type.PASSWORD,
            "The secret brokers present to each other's internal endpoints",
            List.of(new Synonym("tributary.cluster-secret", null, Source.STATIC_BROKER_CONFIG))));
    for (String name : LogConfig.names()) {
      Described described = TOPIC_CONFIGS.get(name);
      // min.insync.replicas is listed above; the throttled replica lists exist only on topics.
      if (!described.brokerName().equals(LogConfig.MIN_IN_SYNC_REPLICAS)
          && !name.equals(LogConfig.LEADER_REPLICATION_THROTTLED_REPLICAS)
          && !name.equals(LogConfig.FOLLOWER_REPLICATION_THROTTLED_REPLICAS)) {
        String value = LogConfig.defaultValue(name);
        entries.add(
            new ConfigEntry(
                described.brokerName(),
                value,
                Source.DEFAULT_CONFIG,
                true,
                false,
                Type.valueOf(LogConfig.type(name).name()),
                "The default of topic config "
                    + name
                    + ": "
                    + lowerFirst(described.documentation()),
                List.of(new Synonym(described.brokerName(), value, Source.DEFAULT_CONFIG))));
      }
    }
    throttleRates(entries, image, config.brokerId());
    return entries;
  }

  private static void throttleRates(List<ConfigEntry> entries, MetadataImage image, int brokerId) {
    for (String name : new java.util.TreeSet<>(BrokerConfigControl.DYNAMIC)) {
      entries.add(dynamicBrokerConfig(image, brokerId, name));
    }
  }

  /**
   * Run-time broker config {@code name} ({@link BrokerConfigControl#DYNAMIC}) of broker {@code
   * brokerId}, or of every broker for {@link MetadataImage#DEFAULT_BROKER}: its own dynamic value,
   * else the cluster-wide one, else Kafka's default (unbounded, {@link Long#MAX_VALUE}); the
   * synonyms list each level that is set, most specific first. What DescribeConfigs and the REST
   * broker-config resources both show.
   */
  public static ConfigEntry dynamicBrokerConfig(MetadataImage image, int brokerId, String name) {
    boolean everyBroker = brokerId == MetadataImage.DEFAULT_BROKER;
    String own = image.brokerConfigs().getOrDefault(brokerId, Map.of()).get(name);
    String fallback =
        everyBroker
            ? null
            : image.brokerConfigs().getOrDefault(MetadataImage.DEFAULT_BROKER, Map.of()).get(name);
    List<Synonym> synonyms = new ArrayList<>();
    if (own != null) {
      synonyms.add(
          new Synonym(
              name,
              own,
              everyBroker ? Source.DYNAMIC_DEFAULT_BROKER_CONFIG : Source.DYNAMIC_BROKER_CONFIG));
    }
    if (fallback != null) {
      synonyms.add(new Synonym(name, fallback, Source.DYNAMIC_DEFAULT_BROKER_CONFIG));
    }
    synonyms.add(new Synonym(name, String.valueOf(Long.MAX_VALUE), Source.DEFAULT_CONFIG));
    Synonym effective = synonyms.get(0);
    return new ConfigEntry(
        name,
        effective.value(),
        effective.source(),
        false,
        false,
        Type.LONG,
        "Bytes per second of replication for throttled replicas outside the ISR (KIP-73);"
            + " changes at run time",
        synonyms);
  }

  private static void configured(
      List<ConfigEntry> entries, String name, Object value, Type type, String documentation) {
    String text = String.valueOf(value);
    entries.add(
        new ConfigEntry(
            name,
            text,
            Source.STATIC_BROKER_CONFIG,
            true,
            false,
            type,
            documentation,
            List.of(new Synonym(name, text, Source.STATIC_BROKER_CONFIG))));
  }

  private static String lowerFirst(String text) {
    return Character.toLowerCase(text.charAt(0)) + text.substring(1);
  }

  /** A topic config's broker-level name and documentation. */
  private record Described(String brokerName, String documentation) {}

  private static Map.Entry<String, Described> topic(
      String name, String brokerName, String documentation) {
    return Map.entry(name, new Described(brokerName, documentation));
  }
}
