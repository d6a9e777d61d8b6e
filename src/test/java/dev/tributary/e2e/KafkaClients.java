package dev.tributary.e2e;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * kafka-clients calls the end-to-end tests make against one {@link TestCluster}'s Kafka listeners,
 * as any application would: producers and consumers with the clients' defaults unless a method says
 * otherwise.
 */
final class KafkaClients {
  static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  private final String bootstrap;

  KafkaClients(TestCluster cluster) {
    this.bootstrap =
        cluster.all().stream()
            .map(b -> b.host() + ":" + b.kafkaPort())
            .collect(Collectors.joining(","));
  }

  /**
   * Every broker's Kafka listener, for {@code bootstrap.servers} or a tool's --bootstrap-server.
   */
  String bootstrap() {
    return bootstrap;
  }

  /** A client's configs: the bootstrap servers, all else kafka-clients' defaults. */
  Properties configs() {
    Properties configs = new Properties();
    configs.put("bootstrap.servers", bootstrap);
    return configs;
  }

  /**
   * A group member that commits by hand, reads from the beginning and notices a dead member in 6 s.
   */
  Properties groupConfigs(String group, String clientId) {
    Properties configs = configs();
    configs.put("group.id", group);
    configs.put("client.id", clientId);
    configs.put("enable.auto.commit", "false");
    configs.put("auto.offset.reset", "earliest");
    configs.put("session.timeout.ms", "6000");
    configs.put("heartbeat.interval.ms", "500");
    return configs;
  }

  /**
   * Sends {@code count} values with kafka-clients' defaults (idempotent, acks=all), round robin
   * over the partitions; all must be acknowledged.
   */
  List<String> produce(String topic, int partitions, String prefix, int count) throws Exception {
    List<String> values = IntStream.range(0, count).mapToObj(i -> prefix + i).toList();
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(configs(), new StringSerializer(), new StringSerializer())) {
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        sends.add(producer.send(new ProducerRecord<>(topic, i % partitions, null, values.get(i))));
      }
      for (Future<RecordMetadata> send : sends) {
        send.get(60, TimeUnit.SECONDS);
      }
    }
    return values;
  }

  /** Every record of every partition, from the log start to the high watermark as it is now. */
  Map<Integer, List<ConsumerRecord<String, String>>> readFromBeginning(
      String topic, int partitions) {
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(configs(), new StringDeserializer(), new StringDeserializer())) {
      List<TopicPartition> all =
          IntStream.range(0, partitions).mapToObj(p -> new TopicPartition(topic, p)).toList();
      consumer.assign(all);
      consumer.seekToBeginning(all);
      Map<TopicPartition, Long> end = consumer.endOffsets(all);
      Map<Integer, List<ConsumerRecord<String, String>>> read = new TreeMap<>();
      all.forEach(tp -> read.put(tp.partition(), new ArrayList<>()));
      await("every partition of " + topic + " read to " + end)
          .atMost(READ_TIMEOUT)
          .pollInSameThread()
          .pollInterval(Duration.ZERO)
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> read.get(r.partition()).add(r));
                return all.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
              });
      return read;
    }
  }

  /** Each partition's high watermark. */
  Map<Integer, Long> endOffsets(String topic, int partitions) {
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(configs(), new StringDeserializer(), new StringDeserializer())) {
      Map<Integer, Long> offsets = new TreeMap<>();
      consumer
          .endOffsets(
              IntStream.range(0, partitions).mapToObj(p -> new TopicPartition(topic, p)).toList())
          .forEach((tp, offset) -> offsets.put(tp.partition(), offset));
      return offsets;
    }
  }

  /** The offsets {@code group} has committed, by partition (one topic). */
  static Map<Integer, Long> committed(Admin admin, String group) throws Exception {
    Map<Integer, Long> offsets = new TreeMap<>();
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin
            .listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata()
            .get(10, TimeUnit.SECONDS);
    committed.forEach((tp, o) -> offsets.put(tp.partition(), o.offset()));
    return offsets;
  }
}
