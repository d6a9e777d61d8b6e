package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.Uuid;
import dev.tributary.metadata.AdvertisedListener.SecurityProtocol;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Broker registrations with named listeners (record version 1), and the registrations written
 * before them (version 0: host and port), which logs and snapshots still hold (docs/adr/0003).
 */
class BrokerListenersRecordTest {
  private static final Uuid INCARNATION = new Uuid(0x1122334455667788L, -42);
  private static final AdvertisedListener HTTP_SSL =
      new AdvertisedListener("HTTP", "broker-3.example", 8443, SecurityProtocol.SSL);
  private static final AdvertisedListener KAFKA =
      new AdvertisedListener("KAFKA", "broker-3.example", 9094, SecurityProtocol.PLAINTEXT);

  // ---- version 0, as the previous release wrote it

  /** A RegisterBroker laid out as the previous release's serde wrote it (type 1, version 0). */
  private static byte[] registerBrokerVersion0(
      int brokerId, Uuid incarnation, String host, int port) {
    return bytes(
        out -> {
          out.writeByte(1);
          out.writeByte(0);
          out.writeInt(brokerId);
          out.writeLong(incarnation.mostSignificantBits());
          out.writeLong(incarnation.leastSignificantBits());
          out.writeUTF(host);
          out.writeInt(port);
        });
  }

  /** A snapshot's BrokerRegistration as the previous release wrote it (type 8, version 0). */
  private static byte[] brokerRegistrationVersion0(
      int brokerId, Uuid incarnation, String host, int port, long brokerEpoch, boolean fenced) {
    return bytes(
        out -> {
          out.writeByte(8);
          out.writeByte(0);
          out.writeInt(brokerId);
          out.writeLong(incarnation.mostSignificantBits());
          out.writeLong(incarnation.leastSignificantBits());
          out.writeUTF(host);
          out.writeInt(port);
          out.writeLong(brokerEpoch);
          out.writeBoolean(fenced);
        });
  }

  @Test
  void aRegistrationFromThePreviousReleaseReplaysAsOneHttpListener() {
    MetadataRecord record =
        MetadataRecordSerde.deserialize(registerBrokerVersion0(3, INCARNATION, "10.0.0.3", 8083));

    assertThat(record)
        .isEqualTo(
            new MetadataRecord.RegisterBroker(
                3,
                INCARNATION,
                List.of(
                    new AdvertisedListener("HTTP", "10.0.0.3", 8083, SecurityProtocol.PLAINTEXT))));
    BrokerImage broker = MetadataImage.EMPTY.replay(5, record).broker(3).orElseThrow();
    assertThat(broker.listeners()).containsExactly(AdvertisedListener.http("10.0.0.3", 8083));
    assertThat(broker.host()).isEqualTo("10.0.0.3");
    assertThat(broker.port()).isEqualTo(8083);
    assertThat(broker.brokerEpoch()).isEqualTo(5);
    assertThat(broker.fenced()).isTrue();
  }

  @Test
  void aSnapshotRegistrationFromThePreviousReleaseReplaysWithItsEpochAndFencing() {
    MetadataImage image =
        MetadataImage.EMPTY.replay(
            0,
            MetadataRecordSerde.deserialize(
                brokerRegistrationVersion0(4, INCARNATION, "10.0.0.4", 8084, 1L << 33, false)));

    BrokerImage broker = image.broker(4).orElseThrow();
    assertThat(broker.listeners()).containsExactly(AdvertisedListener.http("10.0.0.4", 8084));
    assertThat(broker.brokerEpoch()).isEqualTo(1L << 33);
    assertThat(broker.fenced()).isFalse();
  }

  @Test
  void aRegistrationWithOnlyAPlaintextHttpListenerIsWrittenAsThePreviousReleaseWroteIt() {
    // So a broker of the previous release, which reads version 0 only, still replays it.
    assertThat(
            MetadataRecordSerde.serialize(
                new MetadataRecord.RegisterBroker(3, INCARNATION, "10.0.0.3", 8083)))
        .isEqualTo(registerBrokerVersion0(3, INCARNATION, "10.0.0.3", 8083));
    assertThat(
            MetadataRecordSerde.serialize(
                new MetadataRecord.BrokerRegistration(
                    4, INCARNATION, "10.0.0.4", 8084, 1L << 33, false)))
        .isEqualTo(brokerRegistrationVersion0(4, INCARNATION, "10.0.0.4", 8084, 1L << 33, false));
  }

  // ---- version 1

  @Test
  void registrationsWithNamedListenersRoundTripAtVersion1() {
    List<MetadataRecord> records =
        List.of(
            new MetadataRecord.RegisterBroker(3, INCARNATION, List.of(KAFKA, HTTP_SSL)),
            new MetadataRecord.RegisterBroker(3, INCARNATION, List.of(HTTP_SSL)),
            new MetadataRecord.BrokerRegistration(
                3, INCARNATION, List.of(HTTP_SSL, KAFKA), 1L << 40, true));
    assertThat(MetadataRecordSerde.serialize(records.get(0)))
        .as("version 1 layout: the listeners by name, each name, host, port, protocol")
        .isEqualTo(
            registerBrokerVersion1(
                2,
                out -> {
                  listener(out, "HTTP", "broker-3.example", 8443, "SSL");
                  listener(out, "KAFKA", "broker-3.example", 9094, "PLAINTEXT");
                }));
    for (MetadataRecord record : records) {
      byte[] bytes = MetadataRecordSerde.serialize(record);
      assertThat(bytes[1]).as("version of %s", record).isEqualTo((byte) 1);
      assertThat(MetadataRecordSerde.deserialize(bytes)).isEqualTo(record);
    }
  }

  @Test
  void aRegistrationHoldsItsListenersSortedByName() {
    MetadataRecord.RegisterBroker record =
        new MetadataRecord.RegisterBroker(3, INCARNATION, List.of(KAFKA, HTTP_SSL));

    assertThat(record.listeners()).containsExactly(HTTP_SSL, KAFKA);
    BrokerImage broker = MetadataImage.EMPTY.replay(0, record).broker(3).orElseThrow();
    assertThat(broker.listeners()).containsExactly(HTTP_SSL, KAFKA);
    assertThat(broker.listener("KAFKA")).contains(KAFKA);
    assertThat(broker.listener("SASL")).isEmpty();
    assertThat(broker.host()).isEqualTo("broker-3.example");
    assertThat(broker.port()).as("the HTTP listener's").isEqualTo(8443);
  }

  @Test
  void aRegistrationWithoutAnHttpListenerOrWithARepeatedNameCannotExist() {
    AdvertisedListener otherHttp = AdvertisedListener.http("elsewhere", 1);
    assertThatThrownBy(() -> new MetadataRecord.RegisterBroker(3, INCARNATION, List.of(KAFKA)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no HTTP listener");
    assertThatThrownBy(
            () ->
                new MetadataRecord.BrokerRegistration(
                    3, INCARNATION, List.of(HTTP_SSL, otherHttp), 1, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("two listeners are named HTTP");
    assertThatThrownBy(() -> new BrokerImage(3, INCARNATION, List.of(), 1, true))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void unknownVersionsSecurityProtocolsAndImplausibleCountsAreRefused() {
    // Version 2 adds the rack (BrokerRackRecordTest); 3 is unknown.
    byte[] version3 =
        MetadataRecordSerde.serialize(
            new MetadataRecord.RegisterBroker(3, INCARNATION, List.of(HTTP_SSL)));
    version3[1] = 3;
    assertThatThrownBy(() -> MetadataRecordSerde.deserialize(version3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown version 3");

    byte[] topicVersion1 =
        MetadataRecordSerde.serialize(new MetadataRecord.TopicDeleted(INCARNATION));
    topicVersion1[1] = 1;
    assertThatThrownBy(() -> MetadataRecordSerde.deserialize(topicVersion1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown version 1");

    byte[] unknownProtocol =
        registerBrokerVersion1(1, out -> listener(out, "HTTP", "h", 1, "QUIC"));
    assertThatThrownBy(() -> MetadataRecordSerde.deserialize(unknownProtocol))
        .isInstanceOf(IllegalArgumentException.class);

    byte[] noListeners = registerBrokerVersion1(0, out -> {});
    assertThatThrownBy(() -> MetadataRecordSerde.deserialize(noListeners))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("implausible listener count 0");
  }

  // ---- images and snapshots

  @Test
  void aSnapshotKeepsEveryListenerOfEveryBroker() {
    MetadataImage image =
        MetadataImage.EMPTY
            .replay(
                0,
                MetadataRecordSerde.deserialize(
                    registerBrokerVersion0(1, new Uuid(1, 1), "h1", 8081)))
            .replay(1, new MetadataRecord.RegisterBroker(3, INCARNATION, List.of(KAFKA, HTTP_SSL)))
            .replay(2, new MetadataRecord.BrokerUnfenced(3, 1));

    MetadataImage restored = MetadataImage.EMPTY;
    for (MetadataRecord record : image.toRecords()) {
      // through the bytes, as a snapshot file holds them
      MetadataRecord read = MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(record));
      restored = restored.replay(restored.lastOffset() + 1, read);
    }
    restored = restored.withLastOffset(image.lastOffset());

    assertThat(restored).isEqualTo(image);
    assertThat(restored.broker(3).orElseThrow().listeners()).containsExactly(HTTP_SSL, KAFKA);
    assertThat(restored.broker(3).orElseThrow().fenced()).isFalse();
    assertThat(restored.broker(1).orElseThrow().listeners())
        .containsExactly(AdvertisedListener.http("h1", 8081));
  }

  @Test
  void aNewIncarnationReplacesTheListenersOfTheOldOne() {
    MetadataImage image =
        MetadataImage.EMPTY
            .replay(
                0,
                MetadataRecordSerde.deserialize(
                    registerBrokerVersion0(3, new Uuid(3, 1), "h", 8083)))
            .replay(1, new MetadataRecord.RegisterBroker(3, INCARNATION, List.of(HTTP_SSL, KAFKA)));

    BrokerImage broker = image.broker(3).orElseThrow();
    assertThat(broker.listeners()).containsExactly(HTTP_SSL, KAFKA);
    assertThat(broker.brokerEpoch()).isEqualTo(1);
  }

  // ---- helpers

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

  /**
   * A version-1 RegisterBroker of broker 3 with {@code count} listeners that {@code body} writes.
   */
  private static byte[] registerBrokerVersion1(int count, Writer body) {
    return bytes(
        out -> {
          out.writeByte(1);
          out.writeByte(1);
          out.writeInt(3);
          out.writeLong(INCARNATION.mostSignificantBits());
          out.writeLong(INCARNATION.leastSignificantBits());
          out.writeInt(count);
          body.write(out);
        });
  }

  private static void listener(
      DataOutputStream out, String name, String host, int port, String protocol)
      throws IOException {
    out.writeUTF(name);
    out.writeUTF(host);
    out.writeInt(port);
    out.writeUTF(protocol);
  }
}
