package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.Uuid;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * PartitionChange records: version 1 adds the replicas being added and removed by a reassignment
 * (KIP-455) and is written only while one is in progress; every other partition change is written
 * at version 0, as the previous release wrote it, and the version-0 records that logs and snapshots
 * still hold decode as not being reassigned (docs/adr/0003).
 */
class MetadataRecordSerdeTest {
  private static final Uuid TOPIC_ID = new Uuid(0x1122334455667788L, -42);

  private static final MetadataRecord.PartitionChange REASSIGNING =
      new MetadataRecord.PartitionChange(
          TOPIC_ID, 3, List.of(2, 3, 4, 1), List.of(1, 2, 3), 1, 5, 8, List.of(4), List.of(1));

  @Test
  void aPartitionChangeDuringAReassignmentRoundTripsAtVersion1() {
    byte[] bytes = MetadataRecordSerde.serialize(REASSIGNING);

    assertThat(bytes[0]).as("type").isEqualTo((byte) 3);
    assertThat(bytes[1]).as("version").isEqualTo((byte) 1);
    assertThat(bytes)
        .as("version 1 layout: version 0's fields, then adding and removing")
        .isEqualTo(
            partitionChange(
                1,
                out -> {
                  fieldsOfVersion0(out, REASSIGNING);
                  ints(out, List.of(4));
                  ints(out, List.of(1));
                }));
    assertThat(MetadataRecordSerde.deserialize(bytes)).isEqualTo(REASSIGNING);
  }

  @Test
  void onlyAddingOrOnlyRemovingIsAlsoVersion1() {
    List<MetadataRecord.PartitionChange> records =
        List.of(
            new MetadataRecord.PartitionChange(
                TOPIC_ID, 0, List.of(1, 2, 3), List.of(1, 2), 1, 0, 1, List.of(3), List.of()),
            new MetadataRecord.PartitionChange(
                TOPIC_ID, 0, List.of(1, 2, 3), List.of(1, 3), 1, 0, 1, List.of(), List.of(3)));
    for (MetadataRecord.PartitionChange record : records) {
      byte[] bytes = MetadataRecordSerde.serialize(record);
      assertThat(bytes[1]).as("version of %s", record).isEqualTo((byte) 1);
      assertThat(MetadataRecordSerde.deserialize(bytes)).isEqualTo(record);
    }
  }

  @Test
  void aPartitionChangeWithoutAReassignmentIsWrittenAsThePreviousReleaseWroteIt() {
    // So a broker of the previous release, which reads version 0 only, still replays it.
    MetadataRecord.PartitionChange record =
        new MetadataRecord.PartitionChange(TOPIC_ID, 3, List.of(2, 3, 4), List.of(2, 3), 2, 6, 9);

    byte[] bytes = MetadataRecordSerde.serialize(record);

    assertThat(bytes[1]).as("version").isZero();
    assertThat(bytes).isEqualTo(partitionChange(0, out -> fieldsOfVersion0(out, record)));
    assertThat(MetadataRecordSerde.deserialize(bytes)).isEqualTo(record);
  }

  @Test
  void aVersion0PartitionChangeDecodesAsNotBeingReassigned() {
    byte[] old =
        partitionChange(
            0,
            out -> {
              out.writeLong(TOPIC_ID.mostSignificantBits());
              out.writeLong(TOPIC_ID.leastSignificantBits());
              out.writeInt(3);
              ints(out, List.of(1, 2, 3));
              ints(out, List.of(1, 2));
              out.writeInt(1);
              out.writeInt(5);
              out.writeInt(7);
            });

    MetadataRecord.PartitionChange record =
        (MetadataRecord.PartitionChange) MetadataRecordSerde.deserialize(old);

    assertThat(record)
        .isEqualTo(
            new MetadataRecord.PartitionChange(
                TOPIC_ID, 3, List.of(1, 2, 3), List.of(1, 2), 1, 5, 7));
    assertThat(record.addingReplicas()).isEmpty();
    assertThat(record.removingReplicas()).isEmpty();
    PartitionImage p = PartitionImage.of(record);
    assertThat(p.isReassigning()).isFalse();
    assertThat(p.targetReplicas()).containsExactly(1, 2, 3);
  }

  @Test
  void aVersion2PartitionChangeAndATruncatedVersion1AreRefused() {
    byte[] version2 = MetadataRecordSerde.serialize(REASSIGNING);
    version2[1] = 2;
    assertThatThrownBy(() -> MetadataRecordSerde.deserialize(version2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown version 2");

    // A version-1 header on version-0 fields: the lists a version 1 must hold are missing.
    MetadataRecord.PartitionChange plain =
        new MetadataRecord.PartitionChange(TOPIC_ID, 3, List.of(1, 2), List.of(1, 2), 1, 0, 0);
    byte[] truncated = MetadataRecordSerde.serialize(plain);
    truncated[1] = 1;
    assertThatThrownBy(() -> MetadataRecordSerde.deserialize(truncated))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---- helpers

  private interface Writer {
    void write(DataOutputStream out) throws IOException;
  }

  /** A PartitionChange (type 3) at {@code version}, with the fields {@code body} writes. */
  private static byte[] partitionChange(int version, Writer body) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(3);
      out.writeByte(version);
      body.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static void fieldsOfVersion0(DataOutputStream out, MetadataRecord.PartitionChange r)
      throws IOException {
    out.writeLong(r.topicId().mostSignificantBits());
    out.writeLong(r.topicId().leastSignificantBits());
    out.writeInt(r.partition());
    ints(out, r.replicas());
    ints(out, r.isr());
    out.writeInt(r.leader());
    out.writeInt(r.leaderEpoch());
    out.writeInt(r.partitionEpoch());
  }

  private static void ints(DataOutputStream out, List<Integer> values) throws IOException {
    out.writeInt(values.size());
    for (int value : values) {
      out.writeInt(value);
    }
  }
}
