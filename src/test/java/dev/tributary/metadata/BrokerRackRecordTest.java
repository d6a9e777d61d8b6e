package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.Uuid;
import dev.tributary.common.errors.InvalidRegistrationException;
import dev.tributary.metadata.AdvertisedListener.SecurityProtocol;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A broker's rack ({@code broker.rack}) from registration to placement: registration records of
 * version 2 carry it, and only registrations with a rack are written at that version, so logs and
 * snapshots of the previous release still read and a previous release still reads every rack-less
 * registration (docs/adr/0027-racks.md).
 */
class BrokerRackRecordTest {
  private static final Uuid INCARNATION = new Uuid(0x1122334455667788L, -42);
  private static final AdvertisedListener HTTP = AdvertisedListener.http("10.0.0.3", 8083);
  private static final AdvertisedListener KAFKA =
      new AdvertisedListener("KAFKA", "10.0.0.3", 9094, SecurityProtocol.PLAINTEXT);

  /** A RegisterBroker as the previous release wrote one with two listeners (version 1). */
  private static byte[] registerBrokerVersion1() {
    return bytes(
        out -> {
          out.writeByte(1);
          out.writeByte(1);
          out.writeInt(3);
          out.writeLong(INCARNATION.mostSignificantBits());
          out.writeLong(INCARNATION.leastSignificantBits());
          out.writeInt(2);
          listener(out, "HTTP", "10.0.0.3", 8083);
          listener(out, "KAFKA", "10.0.0.3", 9094);
        });
  }

  @Test
  void registrationsWithARackRoundTripAtVersion2WithTheRackLast() {
    MetadataRecord.RegisterBroker register =
        new MetadataRecord.RegisterBroker(3, INCARNATION, List.of(HTTP, KAFKA), "eu-west-1a");
    MetadataRecord.BrokerRegistration snapshot =
        new MetadataRecord.BrokerRegistration(3, INCARNATION, List.of(HTTP), 42, false, "rack-b");

    byte[] bytes = MetadataRecordSerde.serialize(register);
    assertThat(bytes[1]).as("version").isEqualTo((byte) 2);
    byte[] version1WithRack =
        concat(registerBrokerVersion1(), bytes(out -> out.writeUTF("eu-west-1a")));
    version1WithRack[1] = 2;
    assertThat(bytes)
        .as("version 2 layout: version 1's fields, then the rack")
        .isEqualTo(version1WithRack);
    assertThat(MetadataRecordSerde.deserialize(bytes)).isEqualTo(register);

    byte[] snapshotBytes = MetadataRecordSerde.serialize(snapshot);
    assertThat(snapshotBytes[1])
        .as("one plaintext HTTP listener, but a rack: version 2 all the same")
        .isEqualTo((byte) 2);
    assertThat(MetadataRecordSerde.deserialize(snapshotBytes)).isEqualTo(snapshot);
  }

  @Test
  void registrationsWithoutARackAreWrittenAsThePreviousReleaseWroteThem() {
    assertThat(
            MetadataRecordSerde.serialize(
                new MetadataRecord.RegisterBroker(3, INCARNATION, List.of(HTTP, KAFKA))))
        .isEqualTo(registerBrokerVersion1());
    assertThat(
            MetadataRecordSerde.serialize(
                new MetadataRecord.BrokerRegistration(3, INCARNATION, List.of(HTTP), 7, true))[1])
        .as("version")
        .isEqualTo((byte) 0);
  }

  @Test
  void aRegistrationOfThePreviousReleaseReplaysWithoutARack() {
    MetadataRecord record = MetadataRecordSerde.deserialize(registerBrokerVersion1());

    assertThat(((MetadataRecord.RegisterBroker) record).rack()).isNull();
    BrokerImage broker = MetadataImage.EMPTY.replay(5, record).broker(3).orElseThrow();
    assertThat(broker.rack()).isEmpty();
    assertThat(MetadataImage.EMPTY.replay(5, record).brokerRacks()).isEmpty();
  }

  @Test
  void aVersion2RegistrationWithoutItsRackIsTruncated() {
    byte[] missingRack = registerBrokerVersion1();
    missingRack[1] = 2;

    assertThatThrownBy(() -> MetadataRecordSerde.deserialize(missingRack))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("truncated");
  }

  @Test
  void theRackReachesTheImageKeepsThroughFencingAndSurvivesASnapshot() {
    MetadataImage image =
        MetadataImage.EMPTY
            .replay(0, new MetadataRecord.RegisterBroker(3, INCARNATION, List.of(HTTP), "rack-a"))
            .replay(1, new MetadataRecord.RegisterBroker(4, new Uuid(4, 4), "10.0.0.4", 8084))
            .replay(2, new MetadataRecord.BrokerUnfenced(3, 0));

    assertThat(image.broker(3).orElseThrow().rack()).contains("rack-a");
    assertThat(image.broker(3).orElseThrow().fenced()).isFalse();
    assertThat(image.broker(4).orElseThrow().rack()).isEmpty();
    assertThat(image.brokerRacks()).containsExactly(java.util.Map.entry(3, "rack-a"));

    MetadataImage restored = MetadataImage.EMPTY;
    for (MetadataRecord record : image.toRecords()) {
      restored =
          restored.replay(
              restored.lastOffset() + 1,
              MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(record)));
    }
    assertThat(restored.brokers()).isEqualTo(image.brokers());
  }

  @Test
  void theControllerRegistersTheRackOfANewIncarnation() {
    ClusterControl cluster = new ClusterControl(new BrokerHeartbeatManager(3_000));

    List<MetadataRecord> records =
        cluster.register(MetadataImage.EMPTY, 3, INCARNATION, List.of(HTTP), "rack-a", 0);

    assertThat(records)
        .containsExactly(
            new MetadataRecord.RegisterBroker(3, INCARNATION, List.of(HTTP), "rack-a"));
  }

  @Test
  void aBlankOverlongOrControlCharacterRackIsAnInvalidRegistration() {
    ClusterControl cluster = new ClusterControl(new BrokerHeartbeatManager(3_000));
    char[] longRack = new char[ClusterControl.MAX_RACK_LENGTH + 1];
    Arrays.fill(longRack, 'r');

    for (String rack : List.of(" ", "", new String(longRack), "a\nb")) {
      assertThatThrownBy(
              () -> cluster.register(MetadataImage.EMPTY, 3, INCARNATION, List.of(HTTP), rack, 0))
          .as("rack %s", rack.length() > 20 ? rack.length() + " characters" : "'" + rack + "'")
          .isInstanceOf(InvalidRegistrationException.class)
          .hasMessageContaining("invalid rack");
    }
  }

  @Test
  void newTopicsAndPartitionsArePlacedOnDistinctRacks() {
    // Brokers 1..6 on racks a, a, b, b, c, c.
    MetadataImage image = MetadataImage.EMPTY;
    for (int id = 1; id <= 6; id++) {
      String rack = String.valueOf((char) ('a' + (id - 1) / 2));
      image =
          image.replay(
              image.lastOffset() + 1,
              new MetadataRecord.RegisterBroker(
                  id, new Uuid(id, 1), List.of(AdvertisedListener.http("h", 8080 + id)), rack));
      image =
          image.replay(
              image.lastOffset() + 1, new MetadataRecord.BrokerUnfenced(id, image.lastOffset()));
    }
    TopicControl topics = new TopicControl(new Random(17));

    image = replay(image, topics.createTopic(image, "orders", 12, 3, java.util.Map.of()));
    image = replay(image, topics.createPartitions(image, "orders", 20));

    TopicImage orders = image.topic("orders").orElseThrow();
    assertThat(orders.partitions()).hasSize(20);
    for (PartitionImage p : orders.partitions().values()) {
      MetadataImage placed = image;
      assertThat(
              p.replicas().stream()
                  .map(id -> placed.broker(id).orElseThrow().rack())
                  .map(Optional::orElseThrow)
                  .distinct())
          .as("racks of partition %d %s", p.partition(), p.replicas())
          .hasSize(3);
    }
  }

  private static MetadataImage replay(MetadataImage image, List<MetadataRecord> records) {
    for (MetadataRecord record : records) {
      image = image.replay(image.lastOffset() + 1, record);
    }
    return image;
  }

  // ---- bytes

  private interface Writer {
    void write(DataOutputStream out) throws IOException;
  }

  private static byte[] bytes(Writer writer) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      writer.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  private static void listener(DataOutputStream out, String name, String host, int port)
      throws IOException {
    out.writeUTF(name);
    out.writeUTF(host);
    out.writeInt(port);
    out.writeUTF("PLAINTEXT");
  }
}
