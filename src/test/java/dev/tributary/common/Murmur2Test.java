package dev.tributary.common;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/** Murmur2 and the keyed partition choice agree with kafka-clients' {@code Utils}. */
class Murmur2Test {
  private static final long SEED = 9_747L;

  @Test
  void knownVectorsFromKafkasOwnTests() {
    assertThat(Murmur2.hash("21".getBytes(UTF_8))).isEqualTo(-973932308);
    assertThat(Murmur2.hash("foobar".getBytes(UTF_8))).isEqualTo(-790332482);
    assertThat(Murmur2.hash("a-little-bit-long-string".getBytes(UTF_8))).isEqualTo(-985981536);
    assertThat(Murmur2.hash("a-little-bit-longer-string".getBytes(UTF_8))).isEqualTo(-1486304829);
    assertThat(Murmur2.hash("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8".getBytes(UTF_8)))
        .isEqualTo(-58897971);
    assertThat(Murmur2.hash(new byte[] {'a', 'b', 'c'})).isEqualTo(479470107);
  }

  @Test
  void hashEqualsKafkaClientsOnRandomKeysOfEveryTailLength() {
    Random random = new Random(SEED);
    for (int i = 0; i < 20_000; i++) {
      byte[] key = new byte[random.nextInt(101)];
      random.nextBytes(key);
      assertThat(Murmur2.hash(key))
          .as("seed %d key %d (%d bytes)", SEED, i, key.length)
          .isEqualTo(Utils.murmur2(key));
    }
  }

  @Test
  void partitionForKeyEqualsKafkasDefaultPartitioner() {
    Random random = new Random(SEED + 1);
    int[] partitionCounts = {1, 2, 3, 6, 12, 100, 1_000, Integer.MAX_VALUE};
    for (int i = 0; i < 5_000; i++) {
      byte[] key = new byte[random.nextInt(101)];
      random.nextBytes(key);
      for (int n : partitionCounts) {
        assertThat(Murmur2.partitionForKey(key, n))
            .isEqualTo(Utils.toPositive(Utils.murmur2(key)) % n);
      }
    }
  }

  @Test
  void toPositiveClearsTheSignBitLikeKafka() {
    assertThat(Murmur2.toPositive(Integer.MIN_VALUE)).isZero();
    assertThat(Murmur2.toPositive(-1)).isEqualTo(Integer.MAX_VALUE);
    assertThat(Murmur2.toPositive(-973932308)).isEqualTo(Utils.toPositive(-973932308));
    assertThat(Murmur2.toPositive(17)).isEqualTo(17);
  }

  @Test
  void partitionCountMustBePositive() {
    assertThatThrownBy(() -> Murmur2.partitionForKey(new byte[] {1}, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
