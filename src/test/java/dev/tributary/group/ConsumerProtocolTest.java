package dev.tributary.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.assignor.Subscription;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.junit.jupiter.api.Test;

/** ConsumerProtocol's bytes against kafka-clients' own ConsumerProtocol. */
class ConsumerProtocolTest {
  private static final List<TopicPartition> OWNED =
      List.of(
          new TopicPartition("invoices", 2),
          new TopicPartition("orders", 0),
          new TopicPartition("orders", 4));

  /**
   * Kafka sorts the topics as it writes them; ConsumerProtocol keeps the caller's order, and its
   * caller (GroupMembership) sorts, so the bytes are compared for a sorted topic list.
   */
  @Test
  void aSubscriptionIsByteForByteKafkasVersionTwo() {
    byte[] ours =
        ConsumerProtocol.encodeSubscription(
            new Subscription(List.of("invoices", "orders"), OWNED, 7));
    ByteBuffer kafka =
        org.apache.kafka.clients.consumer.internals.ConsumerProtocol.serializeSubscription(
            new ConsumerPartitionAssignor.Subscription(
                List.of("orders", "invoices"), null, kafka(OWNED), 7, Optional.empty()),
            (short) 2);
    assertArrayEquals(bytes(kafka), ours);
  }

  @Test
  void kafkaReadsOurSubscription() {
    byte[] ours =
        ConsumerProtocol.encodeSubscription(new Subscription(List.of("orders"), OWNED, 3));
    ConsumerPartitionAssignor.Subscription s =
        org.apache.kafka.clients.consumer.internals.ConsumerProtocol.deserializeSubscription(
            ByteBuffer.wrap(ours));
    assertEquals(List.of("orders"), s.topics());
    assertEquals(kafka(OWNED), s.ownedPartitions());
    assertEquals(Optional.of(3), s.generationId());
  }

  @Test
  void weReadKafkasSubscriptionOfEveryVersion() {
    for (short version = 0; version <= 3; version++) {
      ByteBuffer kafka =
          org.apache.kafka.clients.consumer.internals.ConsumerProtocol.serializeSubscription(
              new ConsumerPartitionAssignor.Subscription(
                  List.of("orders"),
                  ByteBuffer.wrap(new byte[] {9}),
                  kafka(OWNED),
                  5,
                  Optional.of("rack-1")),
              version);
      Subscription s = ConsumerProtocol.decodeSubscription(bytes(kafka));
      assertEquals(List.of("orders"), s.topics(), "v" + version);
      assertEquals(version >= 1 ? OWNED : List.of(), s.ownedPartitions(), "v" + version);
      assertEquals(version >= 2 ? 5 : -1, s.generationId(), "v" + version);
    }
  }

  @Test
  void anAssignmentIsByteForByteKafkasVersionZeroAndKafkaReadsIt() {
    byte[] ours = ConsumerProtocol.encodeAssignment(OWNED);
    ByteBuffer kafka =
        org.apache.kafka.clients.consumer.internals.ConsumerProtocol.serializeAssignment(
            new ConsumerPartitionAssignor.Assignment(kafka(OWNED)), (short) 0);
    assertArrayEquals(bytes(kafka), ours);
    assertEquals(
        kafka(OWNED),
        org.apache.kafka.clients.consumer.internals.ConsumerProtocol.deserializeAssignment(
                ByteBuffer.wrap(ours))
            .partitions());
  }

  @Test
  void weReadKafkasLatestAssignment() {
    ByteBuffer kafka =
        org.apache.kafka.clients.consumer.internals.ConsumerProtocol.serializeAssignment(
            new ConsumerPartitionAssignor.Assignment(
                kafka(OWNED), ByteBuffer.wrap(new byte[] {1})));
    assertEquals(OWNED, ConsumerProtocol.decodeAssignment(bytes(kafka)));
    assertEquals(List.of(), ConsumerProtocol.decodeAssignment(new byte[0]));
  }

  private static List<org.apache.kafka.common.TopicPartition> kafka(List<TopicPartition> tps) {
    return tps.stream()
        .map(tp -> new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition()))
        .toList();
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }
}
