package dev.tributary.group;

import dev.tributary.common.TopicPartition;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The keys and values the coordinator writes to {@code __consumer_offsets}, in the same binary
 * schemas Kafka uses (non-flexible versions), so the topic reads the same to Kafka's tooling:
 *
 * <pre>
 *   OffsetCommitKey    v1: int16 version=1, string group, string topic, int32 partition
 *   OffsetCommitValue  v3: int16 version=3, int64 offset, int32 leaderEpoch, string metadata,
 *                          int64 commitTimestamp
 *   GroupMetadataKey   v2: int16 version=2, string group
 *   GroupMetadataValue v3: int16 version=3, string protocolType, int32 generation,
 *                          nullable string protocol, nullable string leader, int64 currentStateTimestamp,
 *                          array of [string memberId, nullable string groupInstanceId, string clientId,
 *                          string clientHost, int32 rebalanceTimeout, int32 sessionTimeout,
 *                          bytes subscription, bytes assignment]
 * </pre>
 *
 * Strings are int16 length + UTF-8 (-1 for null), bytes and arrays int32 length. A null value is a
 * tombstone: the offset, or the group, is gone (compaction later drops the key).
 */
public final class GroupRecords {
  static final short OFFSET_KEY_VERSION = 1;
  static final short GROUP_KEY_VERSION = 2;
  static final short OFFSET_VALUE_VERSION = 3;
  static final short GROUP_VALUE_VERSION = 3;

  private GroupRecords() {}

  /** A decoded key: either an offset commit's or a group's. */
  public sealed interface Key permits OffsetKey, GroupKey {
    String groupId();
  }

  public record OffsetKey(String groupId, TopicPartition topicPartition) implements Key {}

  public record GroupKey(String groupId) implements Key {}

  /** One member as stored with its group's metadata. */
  public record StoredMember(
      String memberId,
      String groupInstanceId,
      String clientId,
      String clientHost,
      int rebalanceTimeoutMs,
      int sessionTimeoutMs,
      byte[] subscription,
      byte[] assignment) {}

  /** A group's metadata as of its last completed rebalance (or its becoming empty). */
  public record StoredGroup(
      String protocolType,
      int generationId,
      String protocolName,
      String leaderId,
      long stateTimestampMs,
      List<StoredMember> members) {}

  public static byte[] offsetKey(String groupId, TopicPartition tp) {
    Writer w = new Writer();
    w.int16(OFFSET_KEY_VERSION).string(groupId).string(tp.topic()).int32(tp.partition());
    return w.bytes();
  }

  public static byte[] groupKey(String groupId) {
    return new Writer().int16(GROUP_KEY_VERSION).string(groupId).bytes();
  }

  public static byte[] offsetValue(OffsetAndMetadata offset) {
    return new Writer()
        .int16(OFFSET_VALUE_VERSION)
        .int64(offset.offset())
        .int32(offset.leaderEpoch())
        .string(offset.metadata())
        .int64(offset.commitTimestampMs())
        .bytes();
  }

  public static byte[] groupValue(StoredGroup group) {
    Writer w = new Writer();
    w.int16(GROUP_VALUE_VERSION)
        .string(group.protocolType())
        .int32(group.generationId())
        .string(group.protocolName())
        .string(group.leaderId())
        .int64(group.stateTimestampMs())
        .int32(group.members().size());
    for (StoredMember m : group.members()) {
      w.string(m.memberId())
          .string(m.groupInstanceId())
          .string(m.clientId())
          .string(m.clientHost())
          .int32(m.rebalanceTimeoutMs())
          .int32(m.sessionTimeoutMs())
          .bytes(m.subscription())
          .bytes(m.assignment());
    }
    return w.bytes();
  }

  /**
   * Decodes a key; throws {@link IllegalArgumentException} for a version this broker does not know
   * (the loader skips such records, as Kafka's does for unknown keys).
   */
  public static Key readKey(ByteBuffer key) {
    ByteBuffer b = key.duplicate();
    short version = b.getShort();
    return switch (version) {
      case 0, 1 -> new OffsetKey(readString(b), new TopicPartition(readString(b), b.getInt()));
      case 2 -> new GroupKey(readString(b));
      default ->
          throw new IllegalArgumentException("unknown __consumer_offsets key version " + version);
    };
  }

  /**
   * Reads every OffsetCommitValue version Kafka has written: v0 (offset, metadata, timestamp), v1
   * (+ expire timestamp, ignored: expiry is by retention since KIP-211), v2 (no expiry), v3 (+
   * leader epoch first).
   */
  public static OffsetAndMetadata readOffsetValue(ByteBuffer value) {
    ByteBuffer b = value.duplicate();
    short version = b.getShort();
    if (version < 0 || version > 3) {
      throw new IllegalArgumentException("unsupported offset value version " + version);
    }
    long offset = b.getLong();
    int leaderEpoch = version >= 3 ? b.getInt() : -1;
    String metadata = readString(b);
    long commitTimestamp = b.getLong();
    return new OffsetAndMetadata(offset, leaderEpoch, metadata, commitTimestamp);
  }

  public static StoredGroup readGroupValue(ByteBuffer value) {
    ByteBuffer b = value.duplicate();
    short version = b.getShort();
    if (version != 3) {
      throw new IllegalArgumentException("unsupported group metadata value version " + version);
    }
    String protocolType = readString(b);
    int generation = b.getInt();
    String protocol = readString(b);
    String leader = readString(b);
    long stateTimestamp = b.getLong();
    int count = b.getInt();
    List<StoredMember> members = new ArrayList<>(Math.max(0, count));
    for (int i = 0; i < count; i++) {
      members.add(
          new StoredMember(
              readString(b),
              readString(b),
              readString(b),
              readString(b),
              b.getInt(),
              b.getInt(),
              readBytes(b),
              readBytes(b)));
    }
    return new StoredGroup(protocolType, generation, protocol, leader, stateTimestamp, members);
  }

  static String readString(ByteBuffer b) {
    short length = b.getShort();
    if (length < 0) {
      return null;
    }
    byte[] bytes = new byte[length];
    b.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static byte[] readBytes(ByteBuffer b) {
    int length = b.getInt();
    if (length < 0) {
      return null;
    }
    byte[] bytes = new byte[length];
    b.get(bytes);
    return bytes;
  }

  /** A growable big-endian writer of Kafka's primitive types. */
  static final class Writer {
    private ByteBuffer buffer = ByteBuffer.allocate(128);

    private void ensure(int more) {
      if (buffer.remaining() < more) {
        ByteBuffer bigger =
            ByteBuffer.allocate(Math.max(buffer.capacity() * 2, buffer.position() + more));
        buffer.flip();
        bigger.put(buffer);
        buffer = bigger;
      }
    }

    Writer int16(int v) {
      ensure(2);
      buffer.putShort((short) v);
      return this;
    }

    Writer int32(int v) {
      ensure(4);
      buffer.putInt(v);
      return this;
    }

    Writer int64(long v) {
      ensure(8);
      buffer.putLong(v);
      return this;
    }

    Writer string(String s) {
      if (s == null) {
        return int16(-1);
      }
      byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
      if (bytes.length > Short.MAX_VALUE) {
        throw new IllegalArgumentException("string longer than 32767 bytes");
      }
      int16(bytes.length);
      ensure(bytes.length);
      buffer.put(bytes);
      return this;
    }

    Writer bytes(byte[] bytes) {
      if (bytes == null) {
        return int32(-1);
      }
      int32(bytes.length);
      ensure(bytes.length);
      buffer.put(bytes);
      return this;
    }

    byte[] bytes() {
      byte[] out = new byte[buffer.position()];
      buffer.duplicate().flip().get(out);
      return out;
    }
  }
}
