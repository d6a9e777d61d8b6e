package dev.tributary.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LogConfigTest {
  @Test
  void defaultsAreKafkas() {
    LogConfig config = LogConfig.defaults();
    assertThat(config.retentionMs()).isEqualTo(604_800_000L);
    assertThat(config.retentionBytes()).isEqualTo(-1);
    assertThat(config.segmentBytes()).isEqualTo(1_073_741_824);
    assertThat(config.segmentMs()).isEqualTo(604_800_000L);
    assertThat(config.segmentIndexBytes()).isEqualTo(10_485_760);
    assertThat(config.indexIntervalBytes()).isEqualTo(4096);
    assertThat(config.maxMessageBytes()).isEqualTo(1_048_588);
    assertThat(config.flushMessages()).isEqualTo(Long.MAX_VALUE);
    assertThat(config.flushMs()).isEqualTo(Long.MAX_VALUE);
    assertThat(config.fileDeleteDelayMs()).isEqualTo(60_000);
    assertThat(config.messageTimestampType()).isEqualTo(TimestampType.CREATE_TIME);
    assertThat(config.minInSyncReplicas()).isEqualTo(1);
    assertThat(config.uncleanLeaderElectionEnable()).isFalse();
    assertThat(config.deleteRetentionMs()).isEqualTo(86_400_000L);
    assertThat(config.cleanupPolicy()).isEqualTo("delete");
    assertThat(config.delete()).isTrue();
    assertThat(config.compact()).isFalse();
    assertThat(config.minCleanableDirtyRatio()).isEqualTo(0.5);
    assertThat(config.minCompactionLagMs()).isZero();
    assertThat(config.maxCompactionLagMs()).isEqualTo(Long.MAX_VALUE);
    assertThat(config.compressionType()).isEqualTo("producer");
    assertThat(config.producerIdExpirationMs()).isEqualTo(86_400_000L);
    assertThat(config.toMap().get(LogConfig.LEADER_REPLICATION_THROTTLED_REPLICAS)).isEmpty();
    assertThat(config.toMap().keySet()).isEqualTo(LogConfig.names()).hasSize(22);
  }

  @Test
  void overridesAreParsedAndTrackedAsNonDefault() {
    LogConfig config =
        LogConfig.fromMap(
            Map.of(
                "retention.ms", "-1",
                "segment.bytes", " 4096 ",
                "message.timestamp.type", "LogAppendTime",
                "unclean.leader.election.enable", "TRUE"));
    assertThat(config.retentionMs()).isEqualTo(-1);
    assertThat(config.segmentBytes()).isEqualTo(4096);
    assertThat(config.messageTimestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
    assertThat(config.uncleanLeaderElectionEnable()).isTrue();
    assertThat(config.isDefault("segment.bytes")).isFalse();
    assertThat(config.isDefault("flush.ms")).isTrue();
    assertThat(config.toMap())
        .containsEntry("segment.bytes", "4096")
        .containsEntry("flush.ms", "9223372036854775807");
    assertThat(config.overrides())
        .containsOnlyKeys(
            "retention.ms",
            "segment.bytes",
            "message.timestamp.type",
            "unclean.leader.election.enable");
    assertThat(LogConfig.fromMap(config.overrides())).isEqualTo(config);
    assertThat(config.with(Map.of("retention.ms", "5")).segmentBytes()).isEqualTo(4096);
  }

  @Test
  void badValuesAndUnknownNamesAreRejectedWithTheConfigNamed() {
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("retention.msx", "1")))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("unknown topic config 'retention.msx'");
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("segment.bytes", "100")))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("segment.bytes")
        .hasMessageContaining("at least 1024");
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("retention.ms", "soon")))
        .hasMessageContaining("retention.ms")
        .hasMessageContaining("not a long");
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("retention.ms", "-2")))
        .hasMessageContaining("at least -1");
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("segment.bytes", "3000000000")))
        .hasMessageContaining("not an int");
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("flush.messages", "0")))
        .hasMessageContaining("at least 1");
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("message.timestamp.type", "Now")))
        .hasMessageContaining("CreateTime or LogAppendTime");
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("unclean.leader.election.enable", "yes")))
        .hasMessageContaining("true or false");
  }

  @Test
  void cleanupPolicyIsAListOfCompactAndDelete() {
    LogConfig compact = LogConfig.fromMap(Map.of("cleanup.policy", "compact"));
    assertThat(compact.compact()).isTrue();
    assertThat(compact.delete()).isFalse();
    LogConfig both = LogConfig.fromMap(Map.of("cleanup.policy", " delete, compact "));
    assertThat(both.compact()).isTrue();
    assertThat(both.delete()).isTrue();
    assertThat(both.cleanupPolicy()).isEqualTo("delete, compact");
    assertThat(LogConfig.fromMap(Map.of("cleanup.policy", "compact,delete")).delete()).isTrue();
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("cleanup.policy", "compress")))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("cleanup.policy")
        .hasMessageContaining("'delete' and 'compact'");
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("cleanup.policy", "")))
        .hasMessageContaining("cleanup.policy");
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("cleanup.policy", "compact,")))
        .hasMessageContaining("cleanup.policy");
  }

  @Test
  void compactionConfigsAreValidatedAsKafkaDoes() {
    LogConfig config =
        LogConfig.fromMap(
            Map.of(
                "min.cleanable.dirty.ratio", "0.1",
                "min.compaction.lag.ms", "1000",
                "max.compaction.lag.ms", "5000",
                "delete.retention.ms", "0"));
    assertThat(config.minCleanableDirtyRatio()).isEqualTo(0.1);
    assertThat(config.minCompactionLagMs()).isEqualTo(1000);
    assertThat(config.maxCompactionLagMs()).isEqualTo(5000);
    assertThat(config.deleteRetentionMs()).isZero();
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("min.cleanable.dirty.ratio", "1.5")))
        .hasMessageContaining("min.cleanable.dirty.ratio")
        .hasMessageContaining("between 0 and 1");
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("min.cleanable.dirty.ratio", "half")))
        .hasMessageContaining("not a number");
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("min.compaction.lag.ms", "-1")))
        .hasMessageContaining("at least 0");
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("max.compaction.lag.ms", "0")))
        .hasMessageContaining("at least 1");
    assertThatThrownBy(
            () ->
                LogConfig.fromMap(
                    Map.of("min.compaction.lag.ms", "10", "max.compaction.lag.ms", "5")))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining(
            "min.compaction.lag.ms (10) is larger than max.compaction.lag.ms (5)");
  }

  @Test
  void brokerSideCompressionIsRejectedWithAReason() {
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("compression.type", "gzip")))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("compression.type")
        .hasMessageContaining("only 'producer'");
  }
}
