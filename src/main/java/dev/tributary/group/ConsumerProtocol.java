package dev.tributary.group;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.assignor.Subscription;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What consumers put in a group's opaque protocol fields, in Kafka's "consumer" embedded protocol
 * schemas: a member's subscription (in its join) and its assignment (in the leader's sync). The
 * coordinator stores these bytes without reading them; members and admin views decode them.
 *
 * <pre>
 *   ConsumerProtocolSubscription v2: int16 version, array of string topics, nullable bytes userData,
 *       array of [string topic, array of int32 partitions] ownedPartitions, int32 generationId
 *   ConsumerProtocolAssignment v0:   int16 version, array of [string topic, array of int32 partitions],
 *       nullable bytes userData
 * </pre>
 */
public final class ConsumerProtocol {
  public static final String PROTOCOL_TYPE = "consumer";
  private static final short SUBSCRIPTION_VERSION = 2;
  private static final short ASSIGNMENT_VERSION = 0;

  private ConsumerProtocol() {}

  public static byte[] encodeSubscription(Subscription subscription) {
    GroupRecords.Writer w = new GroupRecords.Writer();
    w.int16(SUBSCRIPTION_VERSION).int32(subscription.topics().size());
    subscription.topics().forEach(w::string);
    w.bytes(null);
    writePartitions(w, subscription.ownedPartitions());
    w.int32(subscription.generationId());
    return w.bytes();
  }

  public static Subscription decodeSubscription(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    short version = b.getShort();
    int count = b.getInt();
    List<String> topics = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      topics.add(GroupRecords.readString(b));
    }
    GroupRecords.readBytes(b);
    List<TopicPartition> owned = version >= 1 ? readPartitions(b) : List.of();
    int generation = version >= 2 ? b.getInt() : -1;
    return new Subscription(topics, owned, generation);
  }

  public static byte[] encodeAssignment(List<TopicPartition> partitions) {
    GroupRecords.Writer w = new GroupRecords.Writer();
    w.int16(ASSIGNMENT_VERSION);
    writePartitions(w, partitions);
    w.bytes(null);
    return w.bytes();
  }

  /** The partitions in an assignment; an empty or absent assignment is none. */
  public static List<TopicPartition> decodeAssignment(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      return List.of();
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    b.getShort();
    return readPartitions(b);
  }

  private static void writePartitions(GroupRecords.Writer w, List<TopicPartition> partitions) {
    Map<String, List<Integer>> byTopic = new TreeMap<>();
    for (TopicPartition tp : partitions) {
      byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
    }
    w.int32(byTopic.size());
    byTopic.forEach(
        (topic, list) -> {
          w.string(topic).int32(list.size());
          list.stream().sorted().forEach(w::int32);
        });
  }

  private static List<TopicPartition> readPartitions(ByteBuffer b) {
    int topics = b.getInt();
    List<TopicPartition> out = new ArrayList<>();
    for (int i = 0; i < topics; i++) {
      String topic = GroupRecords.readString(b);
      int n = b.getInt();
      for (int j = 0; j < n; j++) {
        out.add(new TopicPartition(topic, b.getInt()));
      }
    }
    return out;
  }
}
