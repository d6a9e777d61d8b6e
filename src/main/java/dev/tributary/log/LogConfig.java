package dev.tributary.log;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * A topic's log settings, with Kafka's config names and defaults. Immutable; build it with {@link
 * #fromMap} (which validates every override) or {@link #defaults()}.
 *
 * <p>Deliberate differences from Kafka, each rejected with a message rather than silently ignored:
 *
 * <ul>
 *   <li>{@code cleanup.policy} is a list of {@code delete} and {@code compact}, as in Kafka, but
 *       must not be empty (Kafka 4.1 accepts an empty list as "keep forever").
 *   <li>{@code compression.type} accepts only {@code producer}: batches are stored byte for byte as
 *       they arrive; the broker never recompresses.
 *   <li>{@code segment.bytes} has a minimum of 1024 (Kafka 4 requires 1 MiB, older versions 14):
 *       small enough for tests that roll often, large enough that a segment holds a few batches.
 *   <li>{@code segment.index.bytes} must hold at least one time index entry (12 bytes).
 * </ul>
 *
 * <p>{@code min.insync.replicas} and {@code unclean.leader.election.enable} are validated and
 * carried for the replication layer. {@code delete.retention.ms}, {@code
 * min.cleanable.dirty.ratio}, {@code min.compaction.lag.ms} and {@code max.compaction.lag.ms} drive
 * the {@link LogCleaner} (see docs/adr/0012-log-compaction.md); {@code min.compaction.lag.ms} must
 * not exceed {@code max.compaction.lag.ms}, as in Kafka. {@code producer.id.expiration.ms} is a
 * broker config in Kafka; here it is a topic config with Kafka's name and default (see
 * docs/adr/0018-idempotent-producers.md). {@code file.delete.delay.ms} is validated and accepted
 * only for compatibility with Kafka configs: nothing uses it. Tributary deletes a segment's files
 * as soon as it renames them {@code .deleted}, because a reader that hits a deleted segment retries
 * (see {@link PartitionLog}).
 */
public final class LogConfig {
  public static final String CLEANUP_POLICY = "cleanup.policy";
  public static final String COMPRESSION_TYPE = "compression.type";
  public static final String RETENTION_MS = "retention.ms";
  public static final String RETENTION_BYTES = "retention.bytes";
  public static final String SEGMENT_BYTES = "segment.bytes";
  public static final String SEGMENT_MS = "segment.ms";
  public static final String SEGMENT_INDEX_BYTES = "segment.index.bytes";
  public static final String INDEX_INTERVAL_BYTES = "index.interval.bytes";
  public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
  public static final String FLUSH_MESSAGES = "flush.messages";
  public static final String FLUSH_MS = "flush.ms";
  public static final String FILE_DELETE_DELAY_MS = "file.delete.delay.ms";
  public static final String MESSAGE_TIMESTAMP_TYPE = "message.timestamp.type";
  public static final String MIN_IN_SYNC_REPLICAS = "min.insync.replicas";
  public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";
  public static final String DELETE_RETENTION_MS = "delete.retention.ms";
  public static final String MIN_CLEANABLE_DIRTY_RATIO = "min.cleanable.dirty.ratio";
  public static final String MIN_COMPACTION_LAG_MS = "min.compaction.lag.ms";
  public static final String MAX_COMPACTION_LAG_MS = "max.compaction.lag.ms";
  public static final String PRODUCER_ID_EXPIRATION_MS = "producer.id.expiration.ms";

  /**
   * Replicas throttled on the leader side while they copy (KIP-73): {@code partition:broker,...}.
   */
  public static final String LEADER_REPLICATION_THROTTLED_REPLICAS =
      "leader.replication.throttled.replicas";

  /** Replicas throttled on the follower side while they copy: {@code partition:broker,...}. */
  public static final String FOLLOWER_REPLICATION_THROTTLED_REPLICAS =
      "follower.replication.throttled.replicas";

  public static final int MIN_SEGMENT_BYTES = 1024;

  /**
   * A config's value type, as Kafka's ConfigDef declares it: what DescribeConfigs reports, and
   * whether an incremental alter may APPEND to or SUBTRACT from it ({@link #LIST} only).
   */
  public enum Type {
    BOOLEAN,
    STRING,
    INT,
    LONG,
    DOUBLE,
    /** Comma-separated values. */
    LIST
  }

  /** Every config in display order, with its type, default as a string and parser/validator. */
  private static final Map<String, Def> DEFS = new LinkedHashMap<>();

  static {
    def(CLEANUP_POLICY, Type.LIST, "delete", LogConfig::parseCleanupPolicy);
    def(COMPRESSION_TYPE, Type.STRING, "producer", LogConfig::parseCompressionType);
    def(RETENTION_MS, Type.LONG, "604800000", v -> parseLong(v, -1));
    def(RETENTION_BYTES, Type.LONG, "-1", v -> parseLong(v, -1));
    def(SEGMENT_BYTES, Type.INT, "1073741824", v -> parseInt(v, MIN_SEGMENT_BYTES));
    def(SEGMENT_MS, Type.LONG, "604800000", v -> parseLong(v, 1));
    def(SEGMENT_INDEX_BYTES, Type.INT, "10485760", v -> parseInt(v, TimeIndex.ENTRY_SIZE));
    def(INDEX_INTERVAL_BYTES, Type.INT, "4096", v -> parseInt(v, 0));
    def(MAX_MESSAGE_BYTES, Type.INT, "1048588", v -> parseInt(v, 0));
    def(FLUSH_MESSAGES, Type.LONG, String.valueOf(Long.MAX_VALUE), v -> parseLong(v, 1));
    def(FLUSH_MS, Type.LONG, String.valueOf(Long.MAX_VALUE), v -> parseLong(v, 0));
    def(FILE_DELETE_DELAY_MS, Type.LONG, "60000", v -> parseLong(v, 0));
    def(MESSAGE_TIMESTAMP_TYPE, Type.STRING, "CreateTime", LogConfig::parseTimestampType);
    def(MIN_IN_SYNC_REPLICAS, Type.INT, "1", v -> parseInt(v, 1));
    def(UNCLEAN_LEADER_ELECTION_ENABLE, Type.BOOLEAN, "false", LogConfig::parseBoolean);
    def(DELETE_RETENTION_MS, Type.LONG, "86400000", v -> parseLong(v, 0));
    def(MIN_CLEANABLE_DIRTY_RATIO, Type.DOUBLE, "0.5", LogConfig::parseRatio);
    def(MIN_COMPACTION_LAG_MS, Type.LONG, "0", v -> parseLong(v, 0));
    def(MAX_COMPACTION_LAG_MS, Type.LONG, String.valueOf(Long.MAX_VALUE), v -> parseLong(v, 1));
    def(PRODUCER_ID_EXPIRATION_MS, Type.LONG, "86400000", v -> parseLong(v, 1));
    def(LEADER_REPLICATION_THROTTLED_REPLICAS, Type.LIST, "", LogConfig::parseThrottledReplicas);
    def(FOLLOWER_REPLICATION_THROTTLED_REPLICAS, Type.LIST, "", LogConfig::parseThrottledReplicas);
  }

  private static final LogConfig DEFAULTS = fromMap(Map.of());

  private final Map<String, String> values;
  private final Set<String> overridden;

  /** The list as configured, e.g. {@code "compact,delete"}. */
  private final String cleanupPolicy;

  /** {@code cleanup.policy} contains {@code compact}: the {@link LogCleaner} compacts this log. */
  private final boolean compact;

  /** {@code cleanup.policy} contains {@code delete}: retention.ms and retention.bytes apply. */
  private final boolean delete;

  /** Always {@code "producer"}. */
  private final String compressionType;

  /** -1 keeps data forever. */
  private final long retentionMs;

  /** -1 means no size limit. */
  private final long retentionBytes;

  private final int segmentBytes;
  private final long segmentMs;
  private final int segmentIndexBytes;
  private final int indexIntervalBytes;
  private final int maxMessageBytes;
  private final long flushMessages;
  private final long flushMs;

  /** Accepted for compatibility, unused: segment files are deleted at once because reads retry. */
  private final long fileDeleteDelayMs;

  private final TimestampType messageTimestampType;
  private final int minInSyncReplicas;
  private final boolean uncleanLeaderElectionEnable;
  private final long deleteRetentionMs;
  private final double minCleanableDirtyRatio;
  private final long minCompactionLagMs;
  private final long maxCompactionLagMs;
  private final long producerIdExpirationMs;

  private LogConfig(Map<String, String> values, Set<String> overridden) {
    this.values = Collections.unmodifiableMap(values);
    this.overridden = Set.copyOf(overridden);
    List<?> policies = (List<?>) parsed(CLEANUP_POLICY);
    this.cleanupPolicy = values.get(CLEANUP_POLICY);
    this.compact = policies.contains("compact");
    this.delete = policies.contains("delete");
    this.compressionType = (String) parsed(COMPRESSION_TYPE);
    this.retentionMs = (Long) parsed(RETENTION_MS);
    this.retentionBytes = (Long) parsed(RETENTION_BYTES);
    this.segmentBytes = (Integer) parsed(SEGMENT_BYTES);
    this.segmentMs = (Long) parsed(SEGMENT_MS);
    this.segmentIndexBytes = (Integer) parsed(SEGMENT_INDEX_BYTES);
    this.indexIntervalBytes = (Integer) parsed(INDEX_INTERVAL_BYTES);
    this.maxMessageBytes = (Integer) parsed(MAX_MESSAGE_BYTES);
    this.flushMessages = (Long) parsed(FLUSH_MESSAGES);
    this.flushMs = (Long) parsed(FLUSH_MS);
    this.fileDeleteDelayMs = (Long) parsed(FILE_DELETE_DELAY_MS);
    this.messageTimestampType = (TimestampType) parsed(MESSAGE_TIMESTAMP_TYPE);
    this.minInSyncReplicas = (Integer) parsed(MIN_IN_SYNC_REPLICAS);
    this.uncleanLeaderElectionEnable = (Boolean) parsed(UNCLEAN_LEADER_ELECTION_ENABLE);
    this.deleteRetentionMs = (Long) parsed(DELETE_RETENTION_MS);
    this.minCleanableDirtyRatio = (Double) parsed(MIN_CLEANABLE_DIRTY_RATIO);
    this.minCompactionLagMs = (Long) parsed(MIN_COMPACTION_LAG_MS);
    this.maxCompactionLagMs = (Long) parsed(MAX_COMPACTION_LAG_MS);
    this.producerIdExpirationMs = (Long) parsed(PRODUCER_ID_EXPIRATION_MS);
    if (minCompactionLagMs > maxCompactionLagMs) {
      throw new InvalidConfigException(
          "conflicting topic configs: "
              + MIN_COMPACTION_LAG_MS
              + " ("
              + minCompactionLagMs
              + ") is larger than "
              + MAX_COMPACTION_LAG_MS
              + " ("
              + maxCompactionLagMs
              + ")");
    }
  }

  /** Kafka's defaults for every config. */
  public static LogConfig defaults() {
    return DEFAULTS;
  }

  /**
   * The defaults with {@code overrides} applied. Values are trimmed.
   *
   * @throws InvalidConfigException for an unknown name or a value of the wrong type or out of range
   */
  public static LogConfig fromMap(Map<String, String> overrides) {
    Map<String, String> values = new LinkedHashMap<>();
    DEFS.forEach((name, def) -> values.put(name, def.defaultValue));
    for (Map.Entry<String, String> override : overrides.entrySet()) {
      String name = override.getKey();
      Def def = DEFS.get(name);
      if (def == null) {
        throw new InvalidConfigException(
            "unknown topic config '" + name + "'; known configs: " + DEFS.keySet());
      }
      if (override.getValue() == null) {
        throw new InvalidConfigException("config " + name + " has no value");
      }
      String value = override.getValue().trim();
      try {
        def.parser.apply(value);
      } catch (IllegalArgumentException e) {
        throw new InvalidConfigException(
            "invalid value '" + value + "' for config " + name + ": " + e.getMessage());
      }
      values.put(name, value);
    }
    return new LogConfig(values, overrides.keySet());
  }

  /** This config with {@code overrides} applied on top of its own overrides. */
  public LogConfig with(Map<String, String> overrides) {
    Map<String, String> merged = new LinkedHashMap<>();
    overridden.forEach(name -> merged.put(name, values.get(name)));
    merged.putAll(overrides);
    return fromMap(merged);
  }

  /** All config names, in display order. */
  public static Set<String> names() {
    return Collections.unmodifiableSet(DEFS.keySet());
  }

  /** The value type of {@code name}. */
  public static Type type(String name) {
    Def def = DEFS.get(name);
    if (def == null) {
      throw new InvalidConfigException("unknown topic config '" + name + "'");
    }
    return def.type;
  }

  /** The default of {@code name} as a string. */
  public static String defaultValue(String name) {
    Def def = DEFS.get(name);
    if (def == null) {
      throw new InvalidConfigException("unknown topic config '" + name + "'");
    }
    return def.defaultValue;
  }

  /** Every config with its effective value, in display order. */
  public Map<String, String> toMap() {
    return values;
  }

  /** Only the configs that were set explicitly (even if set to the default value). */
  public Map<String, String> overrides() {
    Map<String, String> result = new LinkedHashMap<>();
    values.forEach(
        (name, value) -> {
          if (overridden.contains(name)) {
            result.put(name, value);
          }
        });
    return result;
  }

  /** True when {@code name} was not set explicitly, so its value is Kafka's default. */
  public boolean isDefault(String name) {
    if (!DEFS.containsKey(name)) {
      throw new InvalidConfigException("unknown topic config '" + name + "'");
    }
    return !overridden.contains(name);
  }

  /** The configured list, e.g. {@code "delete"} or {@code "compact,delete"}. */
  public String cleanupPolicy() {
    return cleanupPolicy;
  }

  /** True when {@code cleanup.policy} includes {@code compact}. */
  public boolean compact() {
    return compact;
  }

  /**
   * True when {@code cleanup.policy} includes {@code delete}: time and size retention apply. A log
   * with only {@code compact} keeps every segment regardless of retention.ms and retention.bytes.
   */
  public boolean delete() {
    return delete;
  }

  public String compressionType() {
    return compressionType;
  }

  public long retentionMs() {
    return retentionMs;
  }

  public long retentionBytes() {
    return retentionBytes;
  }

  public int segmentBytes() {
    return segmentBytes;
  }

  public long segmentMs() {
    return segmentMs;
  }

  public int segmentIndexBytes() {
    return segmentIndexBytes;
  }

  public int indexIntervalBytes() {
    return indexIntervalBytes;
  }

  public int maxMessageBytes() {
    return maxMessageBytes;
  }

  public long flushMessages() {
    return flushMessages;
  }

  public long flushMs() {
    return flushMs;
  }

  /**
   * Accepted for compatibility and otherwise unused: segment files are deleted immediately, since
   * reads retry (see {@link PartitionLog}).
   */
  public long fileDeleteDelayMs() {
    return fileDeleteDelayMs;
  }

  public TimestampType messageTimestampType() {
    return messageTimestampType;
  }

  public int minInSyncReplicas() {
    return minInSyncReplicas;
  }

  public boolean uncleanLeaderElectionEnable() {
    return uncleanLeaderElectionEnable;
  }

  /**
   * How long a tombstone (a record with a null value) survives once it has been through one
   * cleaning pass (see docs/adr/0012-log-compaction.md).
   */
  public long deleteRetentionMs() {
    return deleteRetentionMs;
  }

  /** The cleaner picks the log only once dirty bytes / (clean + dirty) bytes reach this. */
  public double minCleanableDirtyRatio() {
    return minCleanableDirtyRatio;
  }

  /** A record stays uncompacted at least this long (per segment: its largest timestamp). */
  public long minCompactionLagMs() {
    return minCompactionLagMs;
  }

  /** A dirty record older than this forces cleaning whatever the dirty ratio. */
  public long maxCompactionLagMs() {
    return maxCompactionLagMs;
  }

  /**
   * How long a producer id's state outlives its last batch (its timestamp) before it expires: a
   * retry after that, or an out-of-order batch, is taken as from a new producer. Kafka's name and
   * default (a day); Kafka sets it per broker, Tributary per topic (docs/adr/0018).
   */
  public long producerIdExpirationMs() {
    return producerIdExpirationMs;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LogConfig other
        && values.equals(other.values)
        && overridden.equals(other.overridden);
  }

  @Override
  public int hashCode() {
    return Objects.hash(values, overridden);
  }

  @Override
  public String toString() {
    return "LogConfig" + overrides();
  }

  private Object parsed(String name) {
    return DEFS.get(name).parser.apply(values.get(name));
  }

  private record Def(Type type, String defaultValue, Function<String, Object> parser) {}

  private static void def(
      String name, Type type, String defaultValue, Function<String, Object> parser) {
    DEFS.put(name, new Def(type, defaultValue, parser));
  }

  private static Object parseLong(String value, long min) {
    long parsed;
    try {
      parsed = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a long");
    }
    if (parsed < min) {
      throw new IllegalArgumentException("must be at least " + min);
    }
    return parsed;
  }

  private static Object parseInt(String value, int min) {
    int parsed;
    try {
      parsed = Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not an int (at most " + Integer.MAX_VALUE + ")");
    }
    if (parsed < min) {
      throw new IllegalArgumentException("must be at least " + min);
    }
    return parsed;
  }

  private static Object parseBoolean(String value) {
    if (value.equalsIgnoreCase("true")) {
      return true;
    }
    if (value.equalsIgnoreCase("false")) {
      return false;
    }
    throw new IllegalArgumentException("must be true or false");
  }

  /**
   * A comma-separated, non-empty list of {@code delete} and {@code compact} (Kafka's ValidList).
   */
  private static Object parseCleanupPolicy(String value) {
    List<String> policies = new ArrayList<>();
    for (String item : value.split(",", -1)) {
      String policy = item.trim();
      if (!policy.equals("delete") && !policy.equals("compact")) {
        throw new IllegalArgumentException(
            "must be a comma-separated list of 'delete' and 'compact', got '" + policy + "'");
      }
      policies.add(policy);
    }
    return List.copyOf(policies);
  }

  /**
   * Kafka's ThrottledReplicaListValidator: empty, {@code *}, or {@code partition:broker} entries
   * (non-negative ints) separated by commas.
   */
  private static Object parseThrottledReplicas(String value) {
    if (value.isEmpty() || value.equals("*")) {
      return value;
    }
    for (String item : value.split(",", -1)) {
      if (!item.trim().matches("\\d{1,9}:\\d{1,9}")) {
        throw new IllegalArgumentException(
            "must be '*' or a comma-separated list of partition:broker, e.g. 0:1,0:2; got '"
                + item.trim()
                + "'");
      }
    }
    return value;
  }

  private static Object parseRatio(String value) {
    double parsed;
    try {
      parsed = Double.parseDouble(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a number");
    }
    if (!(parsed >= 0 && parsed <= 1)) {
      throw new IllegalArgumentException("must be between 0 and 1");
    }
    return parsed;
  }

  private static Object parseCompressionType(String value) {
    if (value.equals("producer")) {
      return value;
    }
    throw new IllegalArgumentException(
        "only 'producer' is supported: batches are stored as the producer compressed them, never recompressed");
  }

  private static Object parseTimestampType(String value) {
    TimestampType type = TimestampType.forConfigValue(value);
    if (type == null) {
      throw new IllegalArgumentException("must be CreateTime or LogAppendTime");
    }
    return type;
  }
}
