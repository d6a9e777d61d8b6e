package dev.tributary.log.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Seeded random batches, both directions against kafka-clients: what we build Kafka reads back
 * exactly, what Kafka builds we read back exactly, and uncompressed batches are byte for byte the
 * same. Runs seeds 1..200; replay one with {@code -Dtributary.seed=N} (printed on failure).
 */
class RecordBatchRandomizedTest {
  private static final int SEEDS = 200;
  private static final String HEADER_KEY_CHARS = "abcxyz-_.ABC019éß日本🙂";

  @Test
  void randomBatchesRoundTripBothWaysAgainstKafkaClients() {
    Long replay = Long.getLong("tributary.seed");
    if (replay != null) {
      checkSeed(replay);
      return;
    }
    for (long seed = 1; seed <= SEEDS; seed++) {
      checkSeed(seed);
    }
  }

  private static void checkSeed(long seed) {
    try {
      roundTrip(new Random(seed));
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError(
          "seed " + seed + " failed; replay with -Dtributary.seed=" + seed + ": " + e, e);
    }
  }

  private static void roundTrip(Random random) {
    CompressionType type =
        CompressionType.values()[random.nextInt(CompressionType.values().length)];
    long baseOffset = random.nextInt(4) == 0 ? 0L : random.nextLong() >>> 14;
    int leaderEpoch =
        random.nextInt(4) == 0 ? RecordBatch.NO_PARTITION_LEADER_EPOCH : random.nextInt(1_000);
    List<SimpleRecord> records = randomRecords(random);
    List<Record> expected = KafkaRecords.expected(records, baseOffset);

    ByteBuffer ours = RecordBatchBuilder.build(records, type, baseOffset, leaderEpoch);
    assertThat(KafkaRecords.onlyBatch(ours).partitionLeaderEpoch()).isEqualTo(leaderEpoch);
    assertThat(KafkaRecords.read(ours))
        .as("kafka-clients reading our %s batch", type)
        .isEqualTo(expected);

    ByteBuffer kafka = KafkaRecords.build(records, type, baseOffset, leaderEpoch);
    RecordBatch batch = new RecordBatch(kafka);
    batch.validate();
    assertThat(batch.partitionLeaderEpoch()).isEqualTo(leaderEpoch);
    assertThat(batch.records()).as("us reading kafka-clients' %s batch", type).isEqualTo(expected);

    if (type == CompressionType.NONE) {
      assertThat(ours).as("uncompressed bytes").isEqualTo(kafka);
    }
  }

  private static List<SimpleRecord> randomRecords(Random random) {
    int count = 1 + random.nextInt(random.nextInt(8) == 0 ? 500 : 20);
    long timestamp =
        random.nextInt(10) == 0
            ? RecordBatch.NO_TIMESTAMP
            : 1_600_000_000_000L + random.nextInt(1 << 30);
    List<SimpleRecord> records = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      // Timestamps may run backwards within a batch: deltas are signed varlongs.
      long recordTimestamp =
          timestamp < 0 ? timestamp : timestamp + random.nextInt(200_000) - 100_000;
      byte[] key = randomBytes(random, 5, 100);
      byte[] value = randomBytes(random, 10, random.nextInt(20) == 0 ? 200_000 : 2_000);
      List<Header> headers = new ArrayList<>();
      int headerCount = random.nextInt(3) == 0 ? random.nextInt(5) : 0;
      for (int h = 0; h < headerCount; h++) {
        headers.add(new Header(randomHeaderKey(random), randomBytes(random, 4, 50)));
      }
      records.add(new SimpleRecord(recordTimestamp, key, value, headers));
    }
    return records;
  }

  /** Null one time in {@code nullOneIn}, otherwise 0..maxLength random bytes. */
  private static byte[] randomBytes(Random random, int nullOneIn, int maxLength) {
    if (random.nextInt(nullOneIn) == 0) {
      return null;
    }
    byte[] bytes = new byte[random.nextInt(maxLength + 1)];
    // Half the time compressible text, so compressed batches exercise more than stored blocks.
    if (random.nextBoolean()) {
      random.nextBytes(bytes);
    } else {
      for (int i = 0; i < bytes.length; i++) {
        bytes[i] = (byte) ('a' + random.nextInt(4));
      }
    }
    return bytes;
  }

  private static String randomHeaderKey(Random random) {
    int[] codePoints = HEADER_KEY_CHARS.codePoints().toArray();
    StringBuilder key = new StringBuilder();
    int length = random.nextInt(12);
    for (int i = 0; i < length; i++) {
      key.appendCodePoint(codePoints[random.nextInt(codePoints.length)]);
    }
    return key.toString();
  }
}
