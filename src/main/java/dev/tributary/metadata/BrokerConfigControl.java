package dev.tributary.metadata;

import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.log.InvalidConfigException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Dynamic broker configs (Kafka's IncrementalAlterConfigs on the BROKER resource): the records that
 * apply a request to one broker, or to every broker's default ({@link
 * MetadataImage#DEFAULT_BROKER}). Only the replication throttle rates can change at run time; every
 * other broker setting is fixed when the broker starts. A DELETE of a config with no dynamic value
 * is accepted and changes nothing, as in Kafka ({@code kafka-reassign-partitions --verify} deletes
 * every throttle of every broker, set or not).
 */
public final class BrokerConfigControl {
  /**
   * Bytes per second this broker, as a leader, sends to the out-of-sync followers of its throttled
   * replicas ({@code leader.replication.throttled.replicas}).
   */
  public static final String LEADER_THROTTLED_RATE = "leader.replication.throttled.rate";

  /** Bytes per second this broker, as a follower, fetches for its throttled replicas. */
  public static final String FOLLOWER_THROTTLED_RATE = "follower.replication.throttled.rate";

  /** The broker configs that can change at run time. */
  public static final Set<String> DYNAMIC = Set.of(LEADER_THROTTLED_RATE, FOLLOWER_THROTTLED_RATE);

  private BrokerConfigControl() {}

  /**
   * The records that apply {@code changes} to {@code brokerId}'s dynamic configs, all or none.
   *
   * @throws InvalidRequestException for a config named twice, or a change of a config that is not
   *     dynamic
   * @throws InvalidConfigException for a rate that is not a whole number of bytes per second (at
   *     least 0), or APPEND/SUBTRACT (the rates are not lists)
   */
  public static List<MetadataRecord> alter(
      MetadataImage image, int brokerId, List<ConfigChange> changes) {
    Set<String> named = new HashSet<>();
    Set<String> fixed = new TreeSet<>();
    for (ConfigChange change : changes) {
      if (!named.add(change.name())) {
        throw new InvalidRequestException("Error due to duplicate config keys");
      }
      if (change.op() != ConfigChange.Op.DELETE && !DYNAMIC.contains(change.name())) {
        fixed.add(change.name());
      }
    }
    if (!fixed.isEmpty()) {
      throw new InvalidRequestException(
          "Cannot update these configs dynamically: "
              + fixed
              + " (only "
              + new TreeSet<>(DYNAMIC)
              + " change at run time; the other broker configs are set when the broker starts)");
    }
    List<MetadataRecord> records = new ArrayList<>();
    for (ConfigChange change : changes) {
      String current =
          image.brokerConfigs().getOrDefault(brokerId, java.util.Map.of()).get(change.name());
      switch (change.op()) {
        case SET -> {
          String value = rate(change.name(), change.value());
          if (!value.equals(current)) {
            records.add(new MetadataRecord.BrokerConfigChanged(brokerId, change.name(), value));
          }
        }
        case DELETE -> {
          if (current != null) {
            records.add(new MetadataRecord.BrokerConfigChanged(brokerId, change.name(), null));
          }
        }
        default ->
            throw new InvalidConfigException(
                "Config " + change.name() + " is not a list: " + change.op() + " does not apply");
      }
    }
    return records;
  }

  /** {@code value} as a rate in bytes per second (a long, at least 0), trimmed. */
  static String rate(String name, String value) {
    String trimmed = value == null ? "" : value.trim();
    try {
      long rate = Long.parseLong(trimmed);
      if (rate < 0) {
        throw new NumberFormatException();
      }
      return Long.toString(rate);
    } catch (NumberFormatException e) {
      throw new InvalidConfigException(
          "Invalid value "
              + value
              + " for configuration "
              + name
              + ": bytes per second, at least 0");
    }
  }
}
