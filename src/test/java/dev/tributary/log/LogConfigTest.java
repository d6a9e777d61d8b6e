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
    assertThat(config.compressionType()).isEqualTo("producer");
    assertThat(config.toMap().keySet()).isEqualTo(LogConfig.names()).hasSize(16);
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
  void compactionAndBrokerSideCompressionAreRejectedWithAReason() {
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("cleanup.policy", "compact")))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("compaction is not implemented yet");
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("cleanup.policy", "compact,delete")))
        .hasMessageContaining("compaction is not implemented yet");
    assertThatThrownBy(() -> LogConfig.fromMap(Map.of("compression.type", "gzip")))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("compression.type")
        .hasMessageContaining("only 'producer'");
  }
}
