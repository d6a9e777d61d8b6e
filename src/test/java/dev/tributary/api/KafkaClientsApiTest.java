package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.kafka.KafkaListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * An unmodified Kafka client against the broker's Kafka listener: what it produces, REST reads, and
 * what REST produces, it consumes.
 */
class KafkaClientsApiTest extends ApiTestSupport {
  @Autowired KafkaListener kafka;

  private String bootstrap() {
    return "127.0.0.1:" + kafka.port();
  }

  @Test
  void aKafkaProducersRecordsAreReadOverRestAndRestRecordsByAKafkaConsumer() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1);
    Properties producerProps = new Properties();
    producerProps.put("bootstrap.servers", bootstrap());
    producerProps.put("acks", "all");
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(producerProps, new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < 5; i++) {
        RecordMetadata sent = producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i)).get();
        assertThat(sent.offset()).isEqualTo(i);
      }
    }
    JsonNode read = readBinary(topic, 0, 0);
    assertThat(read).hasSize(5);

    produceJson(topic, "{\"records\":[{\"value\":\"from rest\"}]}");
    Properties consumerProps = new Properties();
    consumerProps.put("bootstrap.servers", bootstrap());
    consumerProps.put("enable.auto.commit", "false");
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(consumerProps, new StringDeserializer(), new StringDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      List<ConsumerRecord<String, String>> got = new ArrayList<>();
      long deadline = System.currentTimeMillis() + 20_000;
      while (got.size() < 6 && System.currentTimeMillis() < deadline) {
        consumer.poll(Duration.ofMillis(500)).forEach(got::add);
      }
      assertThat(got)
          .extracting(ConsumerRecord::value)
          .containsExactly("v0", "v1", "v2", "v3", "v4", "\"from rest\"");
      assertThat(consumer.endOffsets(List.of(tp))).isEqualTo(Map.of(tp, 6L));
    }
  }
}
