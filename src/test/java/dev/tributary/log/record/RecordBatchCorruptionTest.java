package dev.tributary.log.record;

import static dev.tributary.log.record.RecordBatchCompatibilityTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Bad bytes fail loudly and only as {@link CorruptRecordException}: the CRC catches damage in
 * transit, and the decoder's framing checks catch batches that are well checksummed but badly
 * built.
 */
class RecordBatchCorruptionTest {
  /**
   * One record (key "k", value "v", no headers) at byte 61: length 8, attributes, timestampDelta 0,
   * offsetDelta 0, keyLength 1, 'k', valueLength 1, 'v', headerCount 0. Varints are zigzag: n is
   * stored as 2n.
   */
  private static final int RECORD_LENGTH_AT = 61;

  private static final int KEY_LENGTH_AT = 65;
  private static final int HEADER_COUNT_AT = 69;

  private static ByteBuffer oneRecordBatch() {
    ByteBuffer batch =
        RecordBatchBuilder.build(
            List.of(new SimpleRecord(5L, bytes("k"), bytes("v"))), CompressionType.NONE, 0L, 0);
    assertThat(batch.limit()).isEqualTo(70);
    assertThat(batch.get(RECORD_LENGTH_AT)).isEqualTo((byte) 16);
    return batch;
  }

  /**
   * Small enough to damage at every byte in turn: each try re-checksums or re-decodes the whole
   * batch.
   */
  private static List<SimpleRecord> smallRecords() {
    return List.of(
        new SimpleRecord(1L, bytes("k"), bytes("v".repeat(300)), List.of(new Header("h", null))),
        new SimpleRecord(2L, null, bytes("second")));
  }

  private static ByteBuffer twoRecordBatch() {
    return RecordBatchBuilder.build(
        List.of(
            new SimpleRecord(5L, bytes("k"), bytes("v")),
            new SimpleRecord(6L, bytes("k2"), bytes("v2"))),
        CompressionType.NONE,
        0L,
        0);
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void anyFlippedByteAfterTheCrcFieldFailsValidation(CompressionType type) {
    ByteBuffer batch = RecordBatchBuilder.build(smallRecords(), type, 3L, 1);
    for (int i = RecordBatch.CRC_OFFSET; i < batch.limit(); i++) {
      ByteBuffer copy = copyOf(batch);
      copy.put(i, (byte) (copy.get(i) ^ 0x01));
      int at = i;
      assertThatThrownBy(() -> new RecordBatch(copy).validate())
          .as("flipped byte %d of %d", at, batch.limit())
          .isInstanceOf(CorruptRecordException.class);
    }
  }

  @Test
  void aWrongMagicIsNamed() {
    ByteBuffer batch = oneRecordBatch();
    batch.put(RecordBatch.MAGIC_OFFSET, (byte) 1);
    assertThatThrownBy(() -> new RecordBatch(batch).validate()).hasMessageContaining("magic 1");
    assertThatThrownBy(() -> new RecordBatch(batch).records()).hasMessageContaining("magic 1");
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void truncatedBatchesAreCorruptAndSkippedOnlyByALenientIterator(CompressionType type) {
    ByteBuffer batch = RecordBatchBuilder.build(smallRecords(), type, 0L, 0);
    for (int size = 1; size < batch.limit(); size++) {
      ByteBuffer cut = batch.duplicate().limit(size);
      String what = "batch cut to " + size + " of " + batch.limit() + " bytes";
      if (size < RecordBatch.HEADER_SIZE) {
        assertThatThrownBy(() -> new RecordBatch(cut))
            .as(what)
            .isInstanceOf(CorruptRecordException.class);
      } else {
        assertThatThrownBy(() -> new RecordBatch(cut).validate())
            .as(what)
            .isInstanceOf(CorruptRecordException.class);
        assertThatThrownBy(() -> new RecordBatch(cut).records())
            .as(what)
            .isInstanceOf(CorruptRecordException.class);
      }
      assertThatThrownBy(() -> BatchIterator.strict(cut).iterator().hasNext())
          .as(what)
          .isInstanceOf(CorruptRecordException.class);
      assertThat(BatchIterator.lenient(cut)).as(what).isEmpty();
    }
  }

  @Test
  void recordLongerThanTheBatch() {
    assertFramingCorrupt(
        oneRecordBatch(), b -> b.put(RECORD_LENGTH_AT, (byte) 100), "has length 50");
  }

  @Test
  void recordShorterThanItsFields() {
    assertFramingCorrupt(
        oneRecordBatch(), b -> b.put(RECORD_LENGTH_AT, (byte) 14), "ends inside a length field");
  }

  @Test
  void keyLongerThanTheRecord() {
    assertFramingCorrupt(oneRecordBatch(), b -> b.put(KEY_LENGTH_AT, (byte) 40), "key length 20");
  }

  @Test
  void negativeKeyLengthOtherThanNull() {
    assertFramingCorrupt(oneRecordBatch(), b -> b.put(KEY_LENGTH_AT, (byte) 3), "key length -2");
  }

  @Test
  void negativeHeaderCount() {
    assertFramingCorrupt(
        oneRecordBatch(), b -> b.put(HEADER_COUNT_AT, (byte) 1), "header count -1");
  }

  @Test
  void headerCountBeyondTheRecord() {
    assertFramingCorrupt(
        oneRecordBatch(), b -> b.put(HEADER_COUNT_AT, (byte) 0x7e), "header count 63");
  }

  @Test
  void varintLongerThanFiveBytes() {
    assertFramingCorrupt(
        oneRecordBatch(),
        b -> {
          for (int i = RECORD_LENGTH_AT; i < RECORD_LENGTH_AT + 6; i++) {
            b.put(i, (byte) 0xff);
          }
        },
        "longer than 5 bytes");
  }

  @Test
  void moreRecordsCountedThanPresent() {
    assertFramingCorrupt(
        oneRecordBatch(), b -> b.putInt(RecordBatch.RECORDS_COUNT_OFFSET, 2), "record 1 of 2");
  }

  @Test
  void fewerRecordsCountedThanPresent() {
    assertFramingCorrupt(
        twoRecordBatch(),
        b -> b.putInt(RecordBatch.RECORDS_COUNT_OFFSET, 1),
        "follow the last of 1 records");
  }

  @Test
  void negativeRecordCountFailsValidationAndDecoding() {
    ByteBuffer batch = oneRecordBatch();
    batch.putInt(RecordBatch.RECORDS_COUNT_OFFSET, -1);
    recomputeCrc(batch);
    assertThatThrownBy(() -> new RecordBatch(batch).validate())
        .hasMessageContaining("negative record count");
    assertThatThrownBy(() -> new RecordBatch(batch).records())
        .hasMessageContaining("negative record count");
  }

  @Test
  void recordThatSwallowsTheNextOnesFirstByte() {
    assertFramingCorrupt(
        twoRecordBatch(), b -> b.put(RECORD_LENGTH_AT, (byte) 18), "after its last header");
  }

  @Test
  void unknownCompressionCodec() {
    assertFramingCorrupt(
        oneRecordBatch(), b -> b.putShort(RecordBatch.ATTRIBUTES_OFFSET, (short) 6), "codec id 6");
  }

  @ParameterizedTest
  @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
  void garbledCompressedPayload(CompressionType type) {
    ByteBuffer batch =
        RecordBatchBuilder.build(RecordBatchCompatibilityTest.awkwardRecords(), type, 0L, 0);
    assertFramingCorrupt(
        batch,
        b -> {
          for (int i = RecordBatch.HEADER_SIZE; i < RecordBatch.HEADER_SIZE + 16; i++) {
            b.put(i, (byte) 0x5a);
          }
        },
        "");
  }

  /**
   * Random damage with the CRC recomputed, so it reaches the decoder: decoding either succeeds or
   * throws {@link CorruptRecordException}; an index error, a hang or any other exception fails the
   * test.
   */
  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void randomDamageBehindAValidCrcFailsOnlyAsCorrupt(CompressionType type) {
    long seed = 20_240_601L + type.id;
    Random random = new Random(seed);
    ByteBuffer batch =
        RecordBatchBuilder.build(RecordBatchCompatibilityTest.awkwardRecords(), type, 0L, 0);
    for (int trial = 0; trial < 300; trial++) {
      ByteBuffer copy = copyOf(batch);
      int damaged = 1 + random.nextInt(4);
      for (int d = 0; d < damaged; d++) {
        int at =
            RecordBatch.ATTRIBUTES_OFFSET
                + random.nextInt(copy.limit() - RecordBatch.ATTRIBUTES_OFFSET);
        copy.put(at, (byte) random.nextInt(256));
      }
      recomputeCrc(copy);
      try {
        new RecordBatch(copy).records();
      } catch (CorruptRecordException expected) {
        // fine: reported as corrupt
      } catch (RuntimeException e) {
        fail("seed " + seed + " trial " + trial + ": " + e, e);
      }
    }
  }

  private static void assertFramingCorrupt(
      ByteBuffer batch, Consumer<ByteBuffer> damage, String message) {
    damage.accept(batch);
    recomputeCrc(batch);
    RecordBatch view = new RecordBatch(batch);
    assertThatCode(view::validate)
        .as("a recomputed CRC hides the damage from validate()")
        .doesNotThrowAnyException();
    assertThatThrownBy(view::records)
        .isInstanceOf(CorruptRecordException.class)
        .hasMessageContaining(message);
  }

  static void recomputeCrc(ByteBuffer batch) {
    RecordBatch view = new RecordBatch(batch);
    batch.putInt(RecordBatch.CRC_OFFSET, (int) view.computeChecksum());
  }

  private static ByteBuffer copyOf(ByteBuffer buffer) {
    ByteBuffer copy = ByteBuffer.allocate(buffer.remaining());
    copy.put(buffer.duplicate()).flip();
    return copy;
  }
}
