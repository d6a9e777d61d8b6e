package dev.tributary.metadata;

import dev.tributary.common.Uuid;
import dev.tributary.security.AclBinding;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ApiKey;
import dev.tributary.security.PatternType;
import dev.tributary.security.ResourceType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Binary encoding of {@link MetadataRecord}s: a type byte, a version byte, then the fields of that
 * version in declaration order (ints and longs big-endian, strings as modified UTF-8 with a null
 * flag, lists as a count then elements). A changed layout gets a new version; the reader keeps a
 * decoder for every version ever written, so old logs and snapshots stay readable. Each record is
 * written at the lowest version that holds it exactly, so a broker of the previous release reads
 * every record that does not need the new fields. See docs/adr/0003-metadata-records.md.
 *
 * <p>Versions: every type is at version 0 (ProducerIds, type 14: {@code brokerId int32, brokerEpoch
 * int64, nextProducerId int64}), except the broker registrations ({@code RegisterBroker}, {@code
 * BrokerRegistration}): version 0 has {@code host, port} (one HTTP listener, PLAINTEXT); version 1
 * has the listeners instead, each {@code name, host, port, securityProtocol} (by name); version 2
 * adds {@code rack} (a string) at the end, written only for a broker with a rack. {@code
 * EventsRecorded}: version 1 adds {@code index int32, causeIndex int32} after each event's fields
 * (the event's place in its batch and its cause's, see {@link ClusterEvent}); a record whose events
 * are at their list positions with no causes is written at version 0, whose reader gives each event
 * its list position and no cause. {@code PartitionChange}: version 1 adds {@code addingReplicas,
 * removingReplicas} (int lists) at the end, written only while a reassignment is in progress.
 */
public final class MetadataRecordSerde {
  private static final byte REGISTER_BROKER = 1;
  private static final byte TOPIC_CREATED = 2;
  private static final byte PARTITION_CHANGE = 3;
  private static final byte TOPIC_CONFIG_CHANGED = 4;
  private static final byte TOPIC_DELETED = 5;
  private static final byte BROKER_FENCED = 6;
  private static final byte BROKER_UNFENCED = 7;
  private static final byte BROKER_REGISTRATION = 8;
  private static final byte EVENTS_RECORDED = 9;
  private static final byte API_KEY_CREATED = 10;
  private static final byte API_KEY_DELETED = 11;
  private static final byte ACL_CREATED = 12;
  private static final byte ACL_DELETED = 13;
  private static final byte PRODUCER_IDS = 14;
  private static final byte UNREGISTER_BROKER = 15;
  private static final byte BROKER_CONFIG_CHANGED = 16;
  private static final byte VERSION_0 = 0;

  /** Broker registrations with named listeners; events with their causes. */
  private static final byte VERSION_1 = 1;

  /** Broker registrations with a rack. */
  private static final byte VERSION_2 = 2;

  /** More listeners than any broker advertises: the bytes are not a registration. */
  private static final int MAX_LISTENERS = 100;

  private MetadataRecordSerde() {}

  public static byte[] serialize(MetadataRecord record) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      if (record instanceof MetadataRecord.RegisterBroker r) {
        registration(
            out, REGISTER_BROKER, r.brokerId(), r.incarnationId(), r.listeners(), r.rack());
        rack(out, r.rack());
      } else if (record instanceof MetadataRecord.TopicCreated r) {
        header(out, TOPIC_CREATED);
        uuid(out, r.topicId());
        out.writeUTF(r.name());
      } else if (record instanceof MetadataRecord.PartitionChange r) {
        boolean reassigning = !r.addingReplicas().isEmpty() || !r.removingReplicas().isEmpty();
        header(out, PARTITION_CHANGE, reassigning ? VERSION_1 : VERSION_0);
        uuid(out, r.topicId());
        out.writeInt(r.partition());
        ints(out, r.replicas());
        ints(out, r.isr());
        out.writeInt(r.leader());
        out.writeInt(r.leaderEpoch());
        out.writeInt(r.partitionEpoch());
        if (reassigning) {
          ints(out, r.addingReplicas());
          ints(out, r.removingReplicas());
        }
      } else if (record instanceof MetadataRecord.TopicConfigChanged r) {
        header(out, TOPIC_CONFIG_CHANGED);
        uuid(out, r.topicId());
        out.writeUTF(r.name());
        nullableString(out, r.value());
      } else if (record instanceof MetadataRecord.TopicDeleted r) {
        header(out, TOPIC_DELETED);
        uuid(out, r.topicId());
      } else if (record instanceof MetadataRecord.BrokerFenced r) {
        header(out, BROKER_FENCED);
        out.writeInt(r.brokerId());
        out.writeLong(r.brokerEpoch());
      } else if (record instanceof MetadataRecord.BrokerUnfenced r) {
        header(out, BROKER_UNFENCED);
        out.writeInt(r.brokerId());
        out.writeLong(r.brokerEpoch());
      } else if (record instanceof MetadataRecord.BrokerConfigChanged r) {
        header(out, BROKER_CONFIG_CHANGED);
        out.writeInt(r.brokerId());
        out.writeUTF(r.name());
        nullableString(out, r.value());
      } else if (record instanceof MetadataRecord.UnregisterBroker r) {
        header(out, UNREGISTER_BROKER);
        out.writeInt(r.brokerId());
        out.writeLong(r.brokerEpoch());
      } else if (record instanceof MetadataRecord.BrokerRegistration r) {
        registration(
            out, BROKER_REGISTRATION, r.brokerId(), r.incarnationId(), r.listeners(), r.rack());
        out.writeLong(r.brokerEpoch());
        out.writeBoolean(r.fenced());
        rack(out, r.rack());
      } else if (record instanceof MetadataRecord.EventsRecorded r) {
        boolean version0 = isVersion0(r.events());
        header(out, EVENTS_RECORDED, version0 ? VERSION_0 : VERSION_1);
        out.writeInt(r.events().size());
        for (ClusterEvent event : r.events()) {
          event(out, event);
          if (!version0) {
            out.writeInt(event.index());
            out.writeInt(event.causeIndex());
          }
        }
      } else if (record instanceof MetadataRecord.ApiKeyCreated r) {
        header(out, API_KEY_CREATED);
        ApiKey key = r.key();
        out.writeUTF(key.keyId());
        out.writeUTF(key.principal());
        out.writeUTF(key.secretSha256());
        out.writeUTF(key.description());
        out.writeLong(key.createdMs());
      } else if (record instanceof MetadataRecord.ApiKeyDeleted r) {
        header(out, API_KEY_DELETED);
        out.writeUTF(r.keyId());
      } else if (record instanceof MetadataRecord.AclCreated r) {
        header(out, ACL_CREATED);
        acl(out, r.acl());
      } else if (record instanceof MetadataRecord.AclDeleted r) {
        header(out, ACL_DELETED);
        acl(out, r.acl());
      } else if (record instanceof MetadataRecord.ProducerIds r) {
        header(out, PRODUCER_IDS);
        out.writeInt(r.brokerId());
        out.writeLong(r.brokerEpoch());
        out.writeLong(r.nextProducerId());
      } else {
        throw new IllegalArgumentException("unknown metadata record " + record);
      }
    } catch (java.io.UTFDataFormatException e) {
      // A string over writeUTF's 65,535 bytes: the records' constructors should have refused it.
      throw new IllegalArgumentException(
          "a string in a " + record.getClass().getSimpleName() + " is too long to encode", e);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // cannot happen writing to memory
    }
    return bytes.toByteArray();
  }

  /**
   * Decodes one record; throws IllegalArgumentException on an unknown type or version, or truncated
   * bytes.
   */
  public static MetadataRecord deserialize(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      byte type = in.readByte();
      byte version = in.readByte();
      byte latest =
          type == REGISTER_BROKER || type == BROKER_REGISTRATION
              ? VERSION_2
              : type == EVENTS_RECORDED || type == PARTITION_CHANGE ? VERSION_1 : VERSION_0;
      if (version < VERSION_0 || version > latest) {
        throw new IllegalArgumentException(
            "unknown version " + version + " of metadata record type " + type);
      }
      return switch (type) {
        case REGISTER_BROKER ->
            new MetadataRecord.RegisterBroker(
                in.readInt(), uuid(in), listeners(in, version), rack(in, version));
        case TOPIC_CREATED -> new MetadataRecord.TopicCreated(uuid(in), in.readUTF());
        case PARTITION_CHANGE -> partitionChange(in, version);
        case TOPIC_CONFIG_CHANGED ->
            new MetadataRecord.TopicConfigChanged(uuid(in), in.readUTF(), nullableString(in));
        case TOPIC_DELETED -> new MetadataRecord.TopicDeleted(uuid(in));
        case BROKER_FENCED -> new MetadataRecord.BrokerFenced(in.readInt(), in.readLong());
        case BROKER_UNFENCED -> new MetadataRecord.BrokerUnfenced(in.readInt(), in.readLong());
        case UNREGISTER_BROKER -> new MetadataRecord.UnregisterBroker(in.readInt(), in.readLong());
        case BROKER_CONFIG_CHANGED ->
            new MetadataRecord.BrokerConfigChanged(in.readInt(), in.readUTF(), nullableString(in));
        case BROKER_REGISTRATION ->
            new MetadataRecord.BrokerRegistration(
                in.readInt(),
                uuid(in),
                listeners(in, version),
                in.readLong(),
                in.readBoolean(),
                rack(in, version));
        case EVENTS_RECORDED -> new MetadataRecord.EventsRecorded(events(in, version));
        case API_KEY_CREATED ->
            new MetadataRecord.ApiKeyCreated(
                new ApiKey(in.readUTF(), in.readUTF(), in.readUTF(), in.readUTF(), in.readLong()));
        case API_KEY_DELETED -> new MetadataRecord.ApiKeyDeleted(in.readUTF());
        case ACL_CREATED -> new MetadataRecord.AclCreated(acl(in));
        case ACL_DELETED -> new MetadataRecord.AclDeleted(acl(in));
        case PRODUCER_IDS ->
            new MetadataRecord.ProducerIds(in.readInt(), in.readLong(), in.readLong());
        default -> throw new IllegalArgumentException("unknown metadata record type " + type);
      };
    } catch (IOException e) {
      throw new IllegalArgumentException("truncated metadata record", e);
    }
  }

  private static MetadataRecord.PartitionChange partitionChange(DataInputStream in, byte version)
      throws IOException {
    Uuid topicId = uuid(in);
    int partition = in.readInt();
    List<Integer> replicas = ints(in);
    List<Integer> isr = ints(in);
    int leader = in.readInt();
    int leaderEpoch = in.readInt();
    int partitionEpoch = in.readInt();
    List<Integer> adding = version >= VERSION_1 ? ints(in) : List.of();
    List<Integer> removing = version >= VERSION_1 ? ints(in) : List.of();
    return new MetadataRecord.PartitionChange(
        topicId, partition, replicas, isr, leader, leaderEpoch, partitionEpoch, adding, removing);
  }

  // Enums by name: reordering them must not change old records' meaning.
  private static void acl(DataOutputStream out, AclBinding acl) throws IOException {
    out.writeUTF(acl.principal());
    out.writeUTF(acl.operation().name());
    out.writeUTF(acl.resourceType().name());
    out.writeUTF(acl.patternType().name());
    out.writeUTF(acl.resourceName());
  }

  private static AclBinding acl(DataInputStream in) throws IOException {
    return new AclBinding(
        in.readUTF(),
        AclOperation.valueOf(in.readUTF()),
        ResourceType.valueOf(in.readUTF()),
        PatternType.valueOf(in.readUTF()),
        in.readUTF());
  }

  private static void header(DataOutputStream out, byte type) throws IOException {
    header(out, type, VERSION_0);
  }

  private static void header(DataOutputStream out, byte type, byte version) throws IOException {
    out.writeByte(type);
    out.writeByte(version);
  }

  /**
   * The header and the fields both registration records begin with, at the lowest version that
   * holds them: version 0 when the listeners are just what it holds (one PLAINTEXT HTTP listener)
   * and there is no rack, version 2 only with a rack. A broker of a previous release, which knows
   * only the lower versions, can then still replay every registration without a rack.
   */
  private static void registration(
      DataOutputStream out,
      byte type,
      int brokerId,
      Uuid incarnationId,
      List<AdvertisedListener> listeners,
      String rack)
      throws IOException {
    AdvertisedListener http = listeners.get(0);
    boolean version0 =
        rack == null
            && listeners.size() == 1
            && http.equals(AdvertisedListener.http(http.host(), http.port()));
    header(out, type, rack != null ? VERSION_2 : version0 ? VERSION_0 : VERSION_1);
    out.writeInt(brokerId);
    uuid(out, incarnationId);
    if (version0) {
      out.writeUTF(http.host());
      out.writeInt(http.port());
      return;
    }
    out.writeInt(listeners.size());
    for (AdvertisedListener listener : listeners) {
      out.writeUTF(listener.name());
      out.writeUTF(listener.host());
      out.writeInt(listener.port());
      out.writeUTF(listener.securityProtocol().name());
    }
  }

  /** A registration's last field from version 2 on; nothing for a broker without a rack. */
  private static void rack(DataOutputStream out, String rack) throws IOException {
    if (rack != null) {
      out.writeUTF(rack);
    }
  }

  private static String rack(DataInputStream in, byte version) throws IOException {
    return version >= VERSION_2 ? in.readUTF() : null;
  }

  private static List<AdvertisedListener> listeners(DataInputStream in, byte version)
      throws IOException {
    if (version == VERSION_0) {
      return List.of(AdvertisedListener.http(in.readUTF(), in.readInt()));
    }
    int count = in.readInt();
    if (count < 1 || count > MAX_LISTENERS) {
      throw new IllegalArgumentException("implausible listener count " + count);
    }
    List<AdvertisedListener> listeners = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      listeners.add(
          new AdvertisedListener(
              in.readUTF(),
              in.readUTF(),
              in.readInt(),
              AdvertisedListener.SecurityProtocol.valueOf(in.readUTF())));
    }
    return listeners;
  }

  private static void uuid(DataOutputStream out, Uuid id) throws IOException {
    out.writeLong(id.mostSignificantBits());
    out.writeLong(id.leastSignificantBits());
  }

  private static Uuid uuid(DataInputStream in) throws IOException {
    return new Uuid(in.readLong(), in.readLong());
  }

  private static void ints(DataOutputStream out, List<Integer> values) throws IOException {
    out.writeInt(values.size());
    for (int value : values) {
      out.writeInt(value);
    }
  }

  private static List<Integer> ints(DataInputStream in) throws IOException {
    int count = in.readInt();
    if (count < 0 || count > 10_000) {
      throw new IllegalArgumentException("implausible list length " + count);
    }
    List<Integer> values = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      values.add(in.readInt());
    }
    return values;
  }

  private static void event(DataOutputStream out, ClusterEvent event) throws IOException {
    out.writeLong(event.offset());
    out.writeLong(event.timestampMs());
    out.writeUTF(
        event.type().name()); // by name: reordering the enum must not change old records' meaning
    nullableString(out, event.topic());
    out.writeInt(event.partition());
    out.writeInt(event.brokerId());
    out.writeUTF(event.text());
    nullableString(out, event.reason());
  }

  /** What version 0 holds: each event at its list position, none caused by another. */
  private static boolean isVersion0(List<ClusterEvent> events) {
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i).index() != i || events.get(i).causeIndex() != -1) {
        return false;
      }
    }
    return true;
  }

  private static List<ClusterEvent> events(DataInputStream in, byte version) throws IOException {
    int count = in.readInt();
    if (count < 0 || count > 10_000) {
      throw new IllegalArgumentException("implausible event count " + count);
    }
    List<ClusterEvent> events = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      long offset = in.readLong();
      long timestampMs = in.readLong();
      ClusterEvent.Type type;
      try {
        type = ClusterEvent.Type.valueOf(in.readUTF());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("unknown cluster event type", e);
      }
      String topic = nullableString(in);
      int partition = in.readInt();
      int brokerId = in.readInt();
      String text = in.readUTF();
      String reason = nullableString(in);
      int index = version == VERSION_0 ? i : in.readInt();
      int causeIndex = version == VERSION_0 ? -1 : in.readInt();
      try {
        events.add(
            new ClusterEvent(
                offset,
                timestampMs,
                type,
                topic,
                partition,
                brokerId,
                text,
                reason,
                index,
                causeIndex));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("bad cluster event position", e);
      }
    }
    return events;
  }

  private static void nullableString(DataOutputStream out, String value) throws IOException {
    out.writeBoolean(value != null);
    if (value != null) {
      out.writeUTF(value);
    }
  }

  private static String nullableString(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readUTF() : null;
  }
}
