package dev.tributary.metadata.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.Uuid;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.metadata.ratis.MetadataBatchCodec.ApplyResult;
import dev.tributary.metadata.ratis.MetadataBatchCodec.Outcome;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetadataBatchCodecTest {
  private final Uuid topicId = new Uuid(1, 2);
  private final List<MetadataRecord> records =
      List.of(
          new MetadataRecord.RegisterBroker(1, new Uuid(3, 4), "localhost", 9092),
          new MetadataRecord.TopicCreated(topicId, "orders"),
          new MetadataRecord.PartitionChange(topicId, 0, List.of(1), List.of(1), 1, 0, 0),
          new MetadataRecord.TopicConfigChanged(topicId, "retention.ms", "1000"));

  @Test
  void aBatchRoundTripsWithItsExpectedLastOffset() {
    byte[] bytes = MetadataBatchCodec.encodeBatch(41, records);
    MetadataBatchCodec.Batch batch = MetadataBatchCodec.decodeBatch(ByteBuffer.wrap(bytes));
    assertThat(batch.expectedLastOffset()).isEqualTo(41);
    assertThat(batch.records()).isEqualTo(records);
  }

  @Test
  void aTruncatedBatchIsRefused() {
    byte[] bytes = MetadataBatchCodec.encodeBatch(41, records);
    assertThatThrownBy(
            () ->
                MetadataBatchCodec.decodeBatch(
                    ByteBuffer.wrap(Arrays.copyOf(bytes, bytes.length - 1))))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anApplyResultRoundTrips() {
    ApplyResult result =
        new ApplyResult(Outcome.REJECTED, 17, "record at offset 18 names unknown topic id ü");
    assertThat(
            MetadataBatchCodec.decodeResult(
                ByteBuffer.wrap(MetadataBatchCodec.encodeResult(result))))
        .isEqualTo(result);
  }

  @Test
  void aSnapshotRebuildsTheImageAtItsLastOffset() throws Exception {
    MetadataImage image = MetadataImage.EMPTY;
    for (int i = 0; i < records.size(); i++) {
      image = image.replay(100 + i, records.get(i));
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    MetadataBatchCodec.writeSnapshot(new DataOutputStream(bytes), image);
    MetadataImage read =
        MetadataBatchCodec.readSnapshot(
            new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    assertThat(read).isEqualTo(image);
    assertThat(read.lastOffset()).isEqualTo(103);
  }
}
