package dev.tributary.log.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** Our zigzag varints write the same bytes as kafka-clients' and read back what they wrote. */
class ByteUtilsTest {
  private static final long SEED = 42L;

  @Test
  void varintsMatchKafkaClientsAndRoundTrip() {
    Random random = new Random(SEED);
    int[] edges = {
      0, 1, -1, 63, -64, 64, -65, 8191, 8192, -8193, Integer.MAX_VALUE, Integer.MIN_VALUE
    };
    for (int value : edges) {
      checkVarint(value);
    }
    for (int i = 0; i < 10_000; i++) {
      checkVarint(random.nextInt() >> random.nextInt(32));
    }
  }

  @Test
  void varlongsMatchKafkaClientsAndRoundTrip() {
    Random random = new Random(SEED);
    LongStream.of(0, 1, -1, 63, -64, 64, 1L << 35, -(1L << 35), Long.MAX_VALUE, Long.MIN_VALUE)
        .forEach(ByteUtilsTest::checkVarlong);
    for (int i = 0; i < 10_000; i++) {
      checkVarlong(random.nextLong() >> random.nextInt(64));
    }
  }

  @Test
  void overlongVarintsAreCorruptAndTruncatedOnesUnderflow() {
    ByteBuffer sixBytes = ByteBuffer.wrap(new byte[] {-1, -1, -1, -1, -1, 1});
    assertThatThrownBy(() -> ByteUtils.readVarint(sixBytes))
        .isInstanceOf(CorruptRecordException.class);
    ByteBuffer elevenBytes =
        ByteBuffer.wrap(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1});
    assertThatThrownBy(() -> ByteUtils.readVarlong(elevenBytes))
        .isInstanceOf(CorruptRecordException.class);
    // Callers turn underflow into CorruptRecordException with the record's position in the message.
    assertThatThrownBy(() -> ByteUtils.readVarint(ByteBuffer.wrap(new byte[] {-1})))
        .isInstanceOf(BufferUnderflowException.class);
  }

  private static void checkVarint(int value) {
    ByteBuffer ours = ByteBuffer.allocate(5);
    ByteUtils.writeVarint(value, ours);
    ByteBuffer kafka = ByteBuffer.allocate(5);
    org.apache.kafka.common.utils.internals.ByteUtils.writeVarint(value, kafka);
    assertThat(ours.flip()).as("varint %d", value).isEqualTo(kafka.flip());
    assertThat(ByteUtils.sizeOfVarint(value)).as("size of %d", value).isEqualTo(ours.remaining());
    assertThat(ByteUtils.readVarint(ours)).isEqualTo(value);
    assertThat(ours.hasRemaining()).isFalse();
  }

  private static void checkVarlong(long value) {
    ByteBuffer ours = ByteBuffer.allocate(10);
    ByteUtils.writeVarlong(value, ours);
    ByteBuffer kafka = ByteBuffer.allocate(10);
    org.apache.kafka.common.utils.internals.ByteUtils.writeVarlong(value, kafka);
    assertThat(ours.flip()).as("varlong %d", value).isEqualTo(kafka.flip());
    assertThat(ByteUtils.sizeOfVarlong(value)).as("size of %d", value).isEqualTo(ours.remaining());
    assertThat(ByteUtils.readVarlong(ours)).isEqualTo(value);
    assertThat(ours.hasRemaining()).isFalse();
  }
}
