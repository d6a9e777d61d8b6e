package dev.tributary.consumer;

import java.util.List;

/**
 * A consumer instance's configuration, named as Kafka's consumer and REST Proxy's instance configs.
 *
 * @param format the embedded format its records are rendered in ({@code json} or {@code binary})
 * @param autoOffsetReset {@code auto.offset.reset}: where to start a partition without a committed
 *     offset ({@code earliest}, {@code latest}, {@code none} = fail)
 * @param autoCommitEnable {@code auto.commit.enable}: commit what was returned every {@code
 *     autoCommitIntervalMs}, before a rebalance takes partitions away, and on close
 * @param fetchMinBytes {@code fetch.min.bytes}: a records call returns once this many bytes are in
 *     hand (or at its timeout)
 * @param requestTimeoutMs {@code consumer.request.timeout.ms}: the longest a records call waits
 * @param sessionTimeoutMs {@code session.timeout.ms}: a member whose client stops polling, or whose
 *     broker stops heartbeating for it, is out of the group after this long
 * @param heartbeatIntervalMs {@code heartbeat.interval.ms}
 * @param assignors {@code partition.assignment.strategy}, in order of preference
 * @param instanceTimeoutMs {@code consumer.instance.timeout.ms}: an instance no request has touched
 *     for this long is deleted
 */
public record ConsumerSettings(
    String format,
    String autoOffsetReset,
    boolean autoCommitEnable,
    long autoCommitIntervalMs,
    int fetchMinBytes,
    long requestTimeoutMs,
    int sessionTimeoutMs,
    int heartbeatIntervalMs,
    List<String> assignors,
    long instanceTimeoutMs) {

  public static final List<String> FORMATS = List.of("json", "binary");
  public static final List<String> RESETS = List.of("earliest", "latest", "none");

  public ConsumerSettings {
    if (!FORMATS.contains(format)) {
      throw new IllegalArgumentException(
          "format must be one of " + FORMATS + ", got '" + format + "'");
    }
    if (!RESETS.contains(autoOffsetReset)) {
      throw new IllegalArgumentException(
          "auto.offset.reset must be one of " + RESETS + ", got '" + autoOffsetReset + "'");
    }
    if (heartbeatIntervalMs < 1 || heartbeatIntervalMs >= sessionTimeoutMs) {
      throw new IllegalArgumentException(
          "heartbeat.interval.ms must be >= 1 and below session.timeout.ms="
              + sessionTimeoutMs
              + ", got "
              + heartbeatIntervalMs);
    }
    if (requestTimeoutMs < 0 || autoCommitIntervalMs < 1 || instanceTimeoutMs < 1) {
      throw new IllegalArgumentException(
          "consumer.request.timeout.ms must be >= 0, auto.commit.interval.ms and consumer.instance.timeout.ms >= 1");
    }
    if (assignors.isEmpty()) {
      throw new IllegalArgumentException(
          "partition.assignment.strategy needs at least one assignor");
    }
    assignors = List.copyOf(assignors);
  }

  /** Kafka's and REST Proxy's defaults, with the given format. */
  public static ConsumerSettings defaults(String format) {
    return new ConsumerSettings(
        format,
        "latest",
        true,
        5_000,
        1,
        1_000,
        45_000,
        3_000,
        List.of("range", "sticky"),
        300_000);
  }
}
