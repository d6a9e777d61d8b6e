package dev.tributary.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ArgsTest {
  private static ProduceOptions produce(String... argv) {
    return ProduceOptions.parse(Args.parse(argv, ProduceOptions.KNOWN));
  }

  private static ConsumeOptions consume(String... argv) {
    return ConsumeOptions.parse(Args.parse(argv, ConsumeOptions.KNOWN));
  }

  @Test
  void produceDefaultsMatchTheDocumentedBenchmark() {
    ProduceOptions o = produce();
    assertThat(o.url().toString()).isEqualTo("http://127.0.0.1:8081");
    assertThat(o.topic()).isEqualTo("bench");
    assertThat(o.partitions()).isEqualTo(3);
    assertThat(o.records()).isEqualTo(1_000_000);
    assertThat(o.recordSizeBytes()).isEqualTo(100);
    assertThat(o.batchRecords()).isEqualTo(500);
    assertThat(o.concurrency()).isEqualTo(8);
    assertThat(o.acks()).isEqualTo("all");
    assertThat(o.format()).isEqualTo(PayloadFormat.BINARY);
    assertThat(o.warmupRecords()).isEqualTo(100_000);
  }

  @Test
  void produceAcceptsSpaceAndEqualsFormsAndCountSuffixes() {
    ProduceOptions o =
        produce(
            "--url=http://localhost:8082/",
            "--topic",
            "t.1",
            "--records",
            "2m",
            "--warmup-records=100k",
            "--batch",
            "1_000",
            "--acks",
            "1",
            "--format",
            "json",
            "--concurrency=2",
            "--partitions",
            "6");
    assertThat(o.url().toString()).isEqualTo("http://localhost:8082");
    assertThat(o.topic()).isEqualTo("t.1");
    assertThat(o.records()).isEqualTo(2_000_000);
    assertThat(o.warmupRecords()).isEqualTo(100_000);
    assertThat(o.batchRecords()).isEqualTo(1_000);
    assertThat(o.acks()).isEqualTo("1");
    assertThat(o.format()).isEqualTo(PayloadFormat.JSON);
    assertThat(o.concurrency()).isEqualTo(2);
    assertThat(o.partitions()).isEqualTo(6);
  }

  @Test
  void badCommandLinesAreRefusedWithTheReason() {
    assertThatThrownBy(() -> produce("--acks", "2")).hasMessageContaining("--acks must be one of");
    assertThatThrownBy(() -> produce("--format", "avro")).hasMessageContaining("--format");
    assertThatThrownBy(() -> produce("--batch", "0"))
        .hasMessageContaining("--batch must be between 1");
    assertThatThrownBy(() -> produce("--records", "ten")).hasMessageContaining("whole number");
    assertThatThrownBy(() -> produce("--records")).hasMessageContaining("needs a value");
    assertThatThrownBy(() -> produce("--records", "--batch", "5"))
        .hasMessageContaining("needs a value");
    assertThatThrownBy(() -> produce("--nope", "1")).hasMessageContaining("unknown option --nope");
    assertThatThrownBy(() -> produce("--batch", "5", "--batch=6"))
        .hasMessageContaining("given twice");
    assertThatThrownBy(() -> produce("extra")).hasMessageContaining("unexpected argument 'extra'");
    assertThatThrownBy(() -> produce("--topic", "a/b")).hasMessageContaining("--topic");
    assertThatThrownBy(() -> produce("--url", "127.0.0.1:8081"))
        .hasMessageContaining("http://HOST:PORT");
    assertThatThrownBy(() -> produce("--records", "99999999999999999999"))
        .hasMessageContaining("whole number");
    assertThatThrownBy(() -> consume("--max-bytes", "1", "--acks", "1"))
        .hasMessageContaining("unknown option");
  }

  @Test
  void helpIsRecognizedAmongOtherOptions() {
    assertThat(
            Args.parse(new String[] {"--topic", "x", "--help"}, ProduceOptions.KNOWN)
                .helpRequested())
        .isTrue();
    assertThat(Args.parse(new String[] {"--topic", "x"}, ProduceOptions.KNOWN).helpRequested())
        .isFalse();
  }

  @Test
  void consumeDefaultsReadEverythingWithOneMebibyteFetches() {
    ConsumeOptions o = consume("--records", "2000000");
    assertThat(o.maxBytes()).isEqualTo(1_048_576);
    assertThat(o.records()).isEqualTo(2_000_000);
    assertThat(o.partitions()).isEqualTo(3);
    assertThat(consume().records()).isZero();
  }
}
