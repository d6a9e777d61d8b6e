package dev.tributary.log;

/** Which timestamp a topic keeps ({@code message.timestamp.type}), with Kafka's config values. */
public enum TimestampType {
  /** The producer's timestamp is stored as it arrives. */
  CREATE_TIME("CreateTime"),
  /**
   * The broker overwrites the batch's max timestamp with its clock at append (and recomputes the
   * CRC).
   */
  LOG_APPEND_TIME("LogAppendTime");

  public final String configValue;

  TimestampType(String configValue) {
    this.configValue = configValue;
  }

  static TimestampType forConfigValue(String value) {
    for (TimestampType type : values()) {
      if (type.configValue.equals(value)) {
        return type;
      }
    }
    return null;
  }
}
