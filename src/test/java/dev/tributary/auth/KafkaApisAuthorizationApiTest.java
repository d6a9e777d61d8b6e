package dev.tributary.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.kafka.KafkaListener;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Each data API of the Kafka listener asks the ACLs REST asks, about the principal the connection
 * authenticated as: exact error codes, request by request, over raw SASL/PLAIN connections. A
 * writer's key may produce and not read; a reader's key the reverse. (Were the services told {@code
 * User:ANONYMOUS}, both would be refused everything.)
 */
class KafkaApisAuthorizationApiTest extends SecuredBrokerTestSupport {
  @Autowired KafkaListener kafka;

  private Key keyWith(String topic, String operation) {
    Key key = newKey("User:kafka-apis-" + COUNTER.incrementAndGet());
    acl(key.principal(), operation, "TOPIC", "LITERAL", topic);
    return key;
  }

  private RawKafkaConnection connect(Key key) throws IOException {
    return RawKafkaConnection.authenticated(kafka.port(), key.id(), key.secret());
  }

  @Test
  void produceTakesWriteAndFetchListOffsetsAndOffsetForLeaderEpochTakeRead() throws Exception {
    String topic = "kafka-apis-" + COUNTER.incrementAndGet();
    createTopic(topic);
    Key writer = keyWith(topic, "WRITE");
    Key reader = keyWith(topic, "READ");

    try (RawKafkaConnection w = connect(writer);
        RawKafkaConnection r = connect(reader)) {
      assertThat(produce(r, topic)).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
      assertThat(produce(w, topic)).isEqualTo(Errors.NONE);

      assertThat(fetch(w, topic)).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
      assertThat(listOffsets(w, topic)).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
      assertThat(offsetForLeaderEpoch(w, topic)).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);

      assertThat(fetch(r, topic)).isEqualTo(Errors.NONE);
      assertThat(listOffsets(r, topic)).isEqualTo(Errors.NONE);
      assertThat(offsetForLeaderEpoch(r, topic)).isEqualTo(Errors.NONE);
    }
    // Only the writer's record is there: the refused produce appended nothing.
    try (RawKafkaConnection r = connect(reader)) {
      ListOffsetsResponse latest = r.roundTrip(listOffsetsRequest(topic, -1L));
      assertThat(latest.topics().get(0).partitions().get(0).offset()).isEqualTo(1);
    }
  }

  private static Errors produce(RawKafkaConnection connection, String topic) throws IOException {
    MemoryRecords records =
        MemoryRecords.withRecords(
            Compression.NONE, new SimpleRecord("v".getBytes(StandardCharsets.UTF_8)));
    ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000);
    ProduceRequestData.TopicProduceData topicData =
        new ProduceRequestData.TopicProduceData().setName(topic);
    topicData
        .partitionData()
        .add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
    data.topicData().add(topicData);
    short version = 11;
    ProduceResponse answer =
        connection.roundTrip(new ProduceRequest.Builder(version, version, data).build(version));
    return Errors.forCode(
        answer.data().responses().iterator().next().partitionResponses().get(0).errorCode());
  }

  private static Errors fetch(RawKafkaConnection connection, String topic) throws IOException {
    FetchRequestData data =
        new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20);
    data.topics()
        .add(
            new FetchRequestData.FetchTopic()
                .setTopic(topic)
                .setPartitions(
                    List.of(
                        new FetchRequestData.FetchPartition()
                            .setPartition(0)
                            .setFetchOffset(0)
                            .setPartitionMaxBytes(1 << 20))));
    FetchResponse answer = connection.roundTrip(new FetchRequest(data, (short) 12));
    return Errors.forCode(answer.data().responses().get(0).partitions().get(0).errorCode());
  }

  private static ListOffsetsRequest listOffsetsRequest(String topic, long timestamp) {
    return ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_UNCOMMITTED)
        .setTargetTimes(
            List.of(
                new ListOffsetsRequestData.ListOffsetsTopic()
                    .setName(topic)
                    .setPartitions(
                        List.of(
                            new ListOffsetsRequestData.ListOffsetsPartition()
                                .setPartitionIndex(0)
                                .setTimestamp(timestamp)))))
        .build((short) 7);
  }

  private static Errors listOffsets(RawKafkaConnection connection, String topic)
      throws IOException {
    ListOffsetsResponse answer = connection.roundTrip(listOffsetsRequest(topic, -2L));
    return Errors.forCode(answer.topics().get(0).partitions().get(0).errorCode());
  }

  private static Errors offsetForLeaderEpoch(RawKafkaConnection connection, String topic)
      throws IOException {
    OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection topics =
        new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
    topics.add(
        new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic()
            .setTopic(topic)
            .setPartitions(
                List.of(
                    new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                        .setPartition(0)
                        .setCurrentLeaderEpoch(-1)
                        .setLeaderEpoch(0))));
    OffsetsForLeaderEpochResponse answer =
        connection.roundTrip(
            OffsetsForLeaderEpochRequest.Builder.forConsumer(topics).build((short) 4));
    return Errors.forCode(answer.data().topics().iterator().next().partitions().get(0).errorCode());
  }
}
