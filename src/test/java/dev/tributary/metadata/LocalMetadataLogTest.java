package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.Uuid;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalMetadataLogTest {
  @TempDir Path dir;
  private final TopicControl control = new TopicControl(new Random(5));

  @Test
  void committedRecordsSurviveAReopen() {
    MetadataImage before;
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      log.append(
          log.image().lastOffset(),
          control.createTopic(log.image(), "a", 2, 1, Map.of("retention.ms", "1"), List.of(1)));
      log.append(
          log.image().lastOffset(),
          control.createTopic(log.image(), "b", 1, 1, Map.of(), List.of(1)));
      log.append(log.image().lastOffset(), control.deleteTopic(log.image(), "a"));
      before = log.image();
    }
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      assertThat(log.image()).isEqualTo(before);
      assertThat(log.image().topic("a")).isEmpty();
      assertThat(log.image().topic("b")).isPresent();
    }
  }

  @Test
  void aTornLastFrameIsDroppedAndEarlierOnesKept() throws IOException {
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      log.append(
          log.image().lastOffset(),
          control.createTopic(log.image(), "kept", 1, 1, Map.of(), List.of(1)));
      log.append(
          log.image().lastOffset(),
          control.createTopic(log.image(), "torn", 1, 1, Map.of(), List.of(1)));
    }
    Path file = dir.resolve("metadata.log");
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(channel.size() - 3);
    }
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      assertThat(log.image().topic("kept")).isPresent();
      assertThat(log.image().topic("torn")).isEmpty();
      log.append(
          log.image().lastOffset(),
          control.createTopic(log.image(), "after", 1, 1, Map.of(), List.of(1)));
    }
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      assertThat(log.image().topicsByName().keySet()).containsExactly("after", "kept");
    }
  }

  @Test
  void aCorruptFrameIsDetectedByItsChecksum() throws IOException {
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      log.append(
          log.image().lastOffset(),
          control.createTopic(log.image(), "first", 1, 1, Map.of(), List.of(1)));
      log.append(
          log.image().lastOffset(),
          control.createTopic(log.image(), "second", 1, 1, Map.of(), List.of(1)));
    }
    Path file = dir.resolve("metadata.log");
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length - 2] ^= 0x5A;
    Files.write(file, bytes);
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      assertThat(log.image().topicsByName().keySet()).containsExactly("first");
    }
  }

  @Test
  void listenersSeeEveryImageInCommitOrder() {
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      List<Integer> topicCounts = new ArrayList<>();
      log.subscribe(image -> topicCounts.add(image.topicsByName().size()));
      log.append(
          log.image().lastOffset(),
          control.createTopic(log.image(), "a", 1, 1, Map.of(), List.of(1)));
      log.append(
          log.image().lastOffset(),
          control.createTopic(log.image(), "b", 1, 1, Map.of(), List.of(1)));
      assertThat(topicCounts).containsExactly(0, 1, 2);
    }
  }

  @Test
  void aRecordThatCannotReplayIsNotWritten() {
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      assertThatThrownBy(
              () -> log.append(-1, List.of(new MetadataRecord.TopicDeleted(new Uuid(1, 2)))))
          .isInstanceOf(IllegalStateException.class);
    }
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      assertThat(log.image().lastOffset()).isEqualTo(-1);
    }
  }

  @Test
  void aBatchComputedFromAnOldImageIsRefusedAndChangesNothing() {
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      MetadataImage before = log.image();
      log.append(before.lastOffset(), control.createTopic(before, "a", 1, 1, Map.of(), List.of(1)));
      assertThatThrownBy(
              () ->
                  log.append(
                      before.lastOffset(),
                      control.createTopic(before, "b", 1, 1, Map.of(), List.of(1))))
          .isInstanceOf(StaleMetadataException.class);
      assertThat(log.image().topic("b")).isEmpty();
    }
  }

  @Test
  void everyRecordTypeRoundTripsThroughTheSerde() {
    Uuid id = new Uuid(123, -456);
    List<MetadataRecord> records =
        List.of(
            new MetadataRecord.RegisterBroker(3, id, "127.0.0.1", 8083),
            new MetadataRecord.TopicCreated(id, "orders"),
            new MetadataRecord.PartitionChange(id, 2, List.of(1, 2, 3), List.of(1, 3), 3, 7, 9),
            new MetadataRecord.TopicConfigChanged(id, "retention.ms", "100"),
            new MetadataRecord.TopicConfigChanged(id, "retention.ms", null),
            new MetadataRecord.TopicDeleted(id),
            new MetadataRecord.BrokerFenced(3, 1L << 40),
            new MetadataRecord.BrokerUnfenced(3, 17),
            new MetadataRecord.BrokerRegistration(3, id, "broker-3.example", 8083, 42, true),
            new MetadataRecord.BrokerRegistration(4, id, "h", 1, 0, false));
    for (MetadataRecord record : records) {
      assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(record)))
          .isEqualTo(record);
    }
    assertThatThrownBy(() -> MetadataRecordSerde.deserialize(new byte[] {99, 0}))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
