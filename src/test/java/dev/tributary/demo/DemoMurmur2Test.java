package dev.tributary.demo;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/** The demo's own murmur2 and partition choice agree with kafka-clients' {@code Utils}. */
class DemoMurmur2Test {
  @Test
  void knownVectorsFromKafkasOwnTests() {
    assertThat(Murmur2.hash("21".getBytes(UTF_8))).isEqualTo(-973932308);
    assertThat(Murmur2.hash("foobar".getBytes(UTF_8))).isEqualTo(-790332482);
    assertThat(Murmur2.hash("a-little-bit-long-string".getBytes(UTF_8))).isEqualTo(-985981536);
    assertThat(Murmur2.hash("a-little-bit-longer-string".getBytes(UTF_8))).isEqualTo(-1486304829);
    assertThat(Murmur2.hash(new byte[] {'a', 'b', 'c'})).isEqualTo(479470107);
  }

  @Test
  void partitionEqualsKafkaClientsOnRandomKeysOfEveryTailLength() {
    long seed = Long.getLong("tributary.seed", 18L);
    Random random = new Random(seed);
    for (int i = 0; i < 5_000; i++) {
      byte[] key = new byte[random.nextInt(40)];
      random.nextBytes(key);
      int partitions = 1 + random.nextInt(12);
      assertThat(Murmur2.partition(key, partitions))
          .as("seed %d, key %d", seed, i)
          .isEqualTo(Utils.toPositive(Utils.murmur2(key)) % partitions);
    }
  }

  @Test
  void theDemosKeysLandWhereAKafkaProducerWouldSendThem() {
    for (int k = 1; k <= 12; k++) {
      byte[] key = ("user-" + k).getBytes(UTF_8);
      assertThat(Murmur2.partition(key, 3)).isEqualTo(Utils.toPositive(Utils.murmur2(key)) % 3);
    }
  }
}
