package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.kafka.KafkaListener;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The Kafka listener at the frame level: the protocol's known traps, and bad input, which gets
 * Kafka's error code (or a closed connection where Kafka closes it), appends nothing and leaves the
 * broker serving.
 */
class KafkaRawFramesApiTest extends ApiTestSupport {
  @Autowired KafkaListener kafka;

  private RawKafka connect() throws IOException {
    return new RawKafka(kafka.port());
  }

  /** The broker still answers a well-formed request on a fresh connection. */
  private void assertStillServing() throws IOException {
    try (RawKafka client = connect()) {
      ApiVersionsResponse answer =
          client.roundTrip(new ApiVersionsRequest.Builder().build((short) 3));
      assertThat(Errors.forCode(answer.data().errorCode())).isEqualTo(Errors.NONE);
    }
  }

  private static ProduceRequest produce(
      short version, String topic, int partition, MemoryRecords records) {
    ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000);
    ProduceRequestData.TopicProduceData topicData =
        new ProduceRequestData.TopicProduceData().setName(topic);
    topicData
        .partitionData()
        .add(new ProduceRequestData.PartitionProduceData().setIndex(partition).setRecords(records));
    data.topicData().add(topicData);
    return new ProduceRequest.Builder(version, version, data).build(version);
  }

  private static MemoryRecords records(String... values) {
    SimpleRecord[] records = new SimpleRecord[values.length];
    for (int i = 0; i < values.length; i++) {
      records[i] = new SimpleRecord(values[i].getBytes(StandardCharsets.UTF_8));
    }
    return MemoryRecords.withRecords(Compression.NONE, records);
  }

  /** Writes a request header by hand (sizes first: the generated code caches string bytes). */
  private static void writeHeader(ByteBuffer frame, RequestHeaderData header, short version) {
    ObjectSerializationCache cache = new ObjectSerializationCache();
    header.size(cache, version);
    header.write(new ByteBufferAccessor(frame), cache, version);
  }

  private static ProduceResponseData.PartitionProduceResponse onlyPartition(ProduceResponse r) {
    return r.data().responses().iterator().next().partitionResponses().get(0);
  }

  // --------------------------------------------------------------------------------- ApiVersions

  @Test
  void apiVersionsAdvertisesProduceFromVersionZeroAndEveryOtherApiAsImplemented() throws Exception {
    try (RawKafka client = connect()) {
      ApiVersionsResponse answer =
          client.roundTrip(new ApiVersionsRequest.Builder().build((short) 3));
      ApiVersionsResponseData.ApiVersion produce = answer.data().apiKeys().find(ApiKeys.PRODUCE.id);
      assertThat(produce.minVersion()).isZero();
      assertThat(produce.maxVersion()).isEqualTo((short) 13);
      assertThat(answer.data().apiKeys().find(ApiKeys.FETCH.id)).isNotNull();
      // transactions are out of scope: not advertised
      assertThat(answer.data().apiKeys().find(ApiKeys.ADD_PARTITIONS_TO_TXN.id)).isNull();
      assertThat(answer.data().apiKeys().find(ApiKeys.END_TXN.id)).isNull();
      assertThat(answer.data().apiKeys().find(ApiKeys.TXN_OFFSET_COMMIT.id)).isNull();
    }
  }

  /**
   * A client newer than the broker asks ApiVersions at a version the broker does not know: the
   * answer is version 0 with UNSUPPORTED_VERSION and the supported ranges, under response header
   * v0, so the client can retry at a version both know.
   */
  @Test
  void apiVersionsAtAnUnknownVersionIsAnsweredAtVersionZeroWithTheSupportedRanges()
      throws Exception {
    try (RawKafka client = connect()) {
      int correlationId = client.nextCorrelationId();
      RequestHeaderData header =
          new RequestHeaderData()
              .setRequestApiKey(ApiKeys.API_VERSIONS.id)
              .setRequestApiVersion((short) 99)
              .setClientId("from-the-future")
              .setCorrelationId(correlationId);
      ApiVersionsRequestData body =
          new ApiVersionsRequestData()
              .setClientSoftwareName("future")
              .setClientSoftwareVersion("9.9");
      ObjectSerializationCache cache = new ObjectSerializationCache();
      short headerVersion = 2;
      short bodyVersion = ApiKeys.API_VERSIONS.latestVersion();
      ByteBuffer frame =
          ByteBuffer.allocate(header.size(cache, headerVersion) + body.size(cache, bodyVersion));
      ByteBufferAccessor accessor = new ByteBufferAccessor(frame);
      header.write(accessor, cache, headerVersion);
      body.write(accessor, cache, bodyVersion);
      frame.flip();
      client.sendFrame(frame);

      ByteBuffer response = client.readFrame();
      assertThat(response.getInt())
          .as("response header v0: the correlation id only")
          .isEqualTo(correlationId);
      ApiVersionsResponse answer =
          (ApiVersionsResponse)
              AbstractResponse.parseResponse(
                  ApiKeys.API_VERSIONS, new ByteBufferAccessor(response), (short) 0);
      assertThat(Errors.forCode(answer.data().errorCode())).isEqualTo(Errors.UNSUPPORTED_VERSION);
      assertThat(answer.data().apiKeys().find(ApiKeys.API_VERSIONS.id).maxVersion())
          .isEqualTo(ApiKeys.API_VERSIONS.latestVersion());
      assertThat(answer.data().apiKeys().find(ApiKeys.METADATA.id)).isNotNull();
    }
  }

  // ---------------------------------------------------------------------------- Produce v0 to v2

  /**
   * Produce v0–2 predate record batches: advertised (older librdkafka turns compression off when
   * the minimum is above 0) and refused per partition with UNSUPPORTED_VERSION, as Kafka 4 does.
   */
  @Test
  void produceBeforeVersionThreeIsRefusedPartitionByPartitionAndAppendsNothing() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 2);
    for (short version = 0; version <= 2; version++) {
      try (RawKafka client = connect()) {
        int correlationId = client.nextCorrelationId();
        byte[] name = topic.getBytes(StandardCharsets.UTF_8);
        ByteBuffer frame = ByteBuffer.allocate(256);
        RequestHeaderData header =
            new RequestHeaderData()
                .setRequestApiKey(ApiKeys.PRODUCE.id)
                .setRequestApiVersion(version)
                .setClientId("legacy")
                .setCorrelationId(correlationId);
        writeHeader(frame, header, (short) 1);
        frame.putShort((short) 1).putInt(5_000); // acks, timeout
        frame.putInt(1).putShort((short) name.length).put(name); // one topic
        frame.putInt(2); // two partitions, each with a 10-byte (old format) message set
        frame.putInt(0).putInt(10).put(new byte[10]);
        frame.putInt(1).putInt(10).put(new byte[10]);
        frame.flip();
        client.sendFrame(frame);

        ByteBuffer response = client.readFrame();
        assertThat(response).as("v%d is answered, not dropped", version).isNotNull();
        assertThat(response.getInt()).isEqualTo(correlationId);
        assertThat(response.getInt()).as("topics").isEqualTo(1);
        byte[] answeredName = new byte[response.getShort()];
        response.get(answeredName);
        assertThat(new String(answeredName, StandardCharsets.UTF_8)).isEqualTo(topic);
        assertThat(response.getInt()).as("partitions").isEqualTo(2);
        for (int partition = 0; partition < 2; partition++) {
          assertThat(response.getInt()).isEqualTo(partition);
          assertThat(Errors.forCode(response.getShort())).isEqualTo(Errors.UNSUPPORTED_VERSION);
          assertThat(response.getLong()).as("base offset").isEqualTo(-1);
          if (version >= 2) {
            assertThat(response.getLong()).as("log append time").isEqualTo(-1);
          }
        }
        if (version >= 1) {
          assertThat(response.getInt()).as("throttle time").isZero();
        }
        assertThat(response.hasRemaining()).isFalse();
      }
    }
    assertThat(endOffset(topic, 0)).isZero();
    assertThat(endOffset(topic, 1)).isZero();
  }

  // ---------------------------------------------------------------------------- frames that lie

  @Test
  void aGarbageFrameClosesTheConnectionAndTheBrokerServesOn() throws Exception {
    try (RawKafka client = connect()) {
      byte[] garbage = new byte[64];
      ThreadLocalRandom.current().nextBytes(garbage);
      garbage[0] = 0x7f; // an API key no version of Kafka has
      client.sendFrame(ByteBuffer.wrap(garbage));
      assertThat(client.closedByBroker()).isTrue();
    }
    assertStillServing();
  }

  @Test
  void aKnownApiWhoseBodyDoesNotParseClosesTheConnection() throws Exception {
    try (RawKafka client = connect()) {
      ByteBuffer frame = ByteBuffer.allocate(64);
      RequestHeaderData header =
          new RequestHeaderData()
              .setRequestApiKey(ApiKeys.FETCH.id)
              .setRequestApiVersion((short) 12)
              .setClientId("liar")
              .setCorrelationId(client.nextCorrelationId());
      writeHeader(frame, header, (short) 2);
      frame.put((byte) 0x55).put((byte) 0x66); // two bytes of a Fetch body, then nothing
      frame.flip();
      client.sendFrame(frame);
      assertThat(client.closedByBroker()).isTrue();
    }
    assertStillServing();
  }

  @Test
  void aFrameCutShortByTheClientIsDroppedWithItsConnection() throws Exception {
    try (RawKafka client = connect()) {
      client.sendBytes(ByteBuffer.allocate(14).putInt(1_000).putShort((short) 3).flip());
      client.shutdownOutput();
      assertThat(client.closedByBroker()).isTrue();
    }
    assertStillServing();
  }

  @Test
  void aFrameLargerThanSocketRequestMaxBytesIsRefusedBeforeItIsRead() throws Exception {
    try (RawKafka client = connect()) {
      client.sendBytes(ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).flip());
      assertThat(client.closedByBroker()).isTrue();
    }
    assertStillServing();
  }

  // ----------------------------------------------------------------------- requests that are wrong

  @Test
  void aBatchWithABadCrcIsCorruptMessageAndAppendsNothing() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1);
    MemoryRecords records = records("one", "two");
    ByteBuffer bytes = records.buffer();
    int last = bytes.limit() - 1;
    bytes.put(last, (byte) (bytes.get(last) ^ 0x01)); // flip a bit of the last record's value
    try (RawKafka client = connect()) {
      ProduceResponse answer =
          client.roundTrip(produce((short) 9, topic, 0, MemoryRecords.readableRecords(bytes)));
      assertThat(Errors.forCode(onlyPartition(answer).errorCode()))
          .isEqualTo(Errors.CORRUPT_MESSAGE);
    }
    assertThat(endOffset(topic, 0)).isZero();
  }

  @Test
  void unknownTopicsAndPartitionsAreUnknownTopicOrPartition() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1);
    try (RawKafka client = connect()) {
      ProduceResponse noTopic =
          client.roundTrip(produce((short) 9, newTopicName(), 0, records("x")));
      assertThat(Errors.forCode(onlyPartition(noTopic).errorCode()))
          .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
      ProduceResponse noPartition = client.roundTrip(produce((short) 9, topic, 7, records("x")));
      assertThat(Errors.forCode(onlyPartition(noPartition).errorCode()))
          .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }
    assertThat(endOffset(topic, 0)).isZero();
  }

  /**
   * ListOffsets is answered at every version advertised; before v4 without a leader epoch, which
   * that version cannot carry (librdkafka 2.0, Debian's kcat, asks at v2).
   */
  @Test
  void listOffsetsIsAnsweredAtEveryAdvertisedVersion() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1);
    try (RawKafka client = connect()) {
      client.roundTrip(produce((short) 9, topic, 0, records("a", "b")));
      ApiVersionsResponse versions =
          client.roundTrip(new ApiVersionsRequest.Builder().build((short) 3));
      ApiVersionsResponseData.ApiVersion advertised =
          versions.data().apiKeys().find(ApiKeys.LIST_OFFSETS.id);
      for (short version = advertised.minVersion(); version <= advertised.maxVersion(); version++) {
        ListOffsetsRequestData.ListOffsetsTopic target =
            new ListOffsetsRequestData.ListOffsetsTopic().setName(topic);
        target
            .partitions()
            .add(
                new ListOffsetsRequestData.ListOffsetsPartition()
                    .setPartitionIndex(0)
                    .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP));
        ListOffsetsResponse answer =
            client.roundTrip(
                ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_UNCOMMITTED)
                    .setTargetTimes(List.of(target))
                    .build(version));
        ListOffsetsResponseData.ListOffsetsPartitionResponse partition =
            answer.data().topics().get(0).partitions().get(0);
        assertThat(Errors.forCode(partition.errorCode())).as("v%d", version).isEqualTo(Errors.NONE);
        assertThat(partition.offset()).as("v%d", version).isEqualTo(2);
        assertThat(partition.leaderEpoch()).as("v%d", version).isEqualTo(version >= 4 ? 0 : -1);
      }
    }
  }

  @Test
  void aBatchOverMaxMessageBytesIsMessageTooLargeAndAppendsNothing() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1, "[{\"name\":\"max.message.bytes\",\"value\":\"1000\"}]");
    try (RawKafka client = connect()) {
      ProduceResponse answer =
          client.roundTrip(produce((short) 9, topic, 0, records("x".repeat(2_000))));
      assertThat(Errors.forCode(onlyPartition(answer).errorCode()))
          .isEqualTo(Errors.MESSAGE_TOO_LARGE);
    }
    assertThat(endOffset(topic, 0)).isZero();
  }

  private static FetchRequest fetch(String topic, long fetchOffset, int... partitions) {
    FetchRequestData data =
        new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20);
    FetchRequestData.FetchTopic fetchTopic = new FetchRequestData.FetchTopic().setTopic(topic);
    for (int partition : partitions) {
      fetchTopic
          .partitions()
          .add(
              new FetchRequestData.FetchPartition()
                  .setPartition(partition)
                  .setFetchOffset(fetchOffset)
                  .setPartitionMaxBytes(1 << 20));
    }
    data.topics().add(fetchTopic);
    return new FetchRequest(data, (short) 12);
  }

  /**
   * Batches go out as stored: a fetch from an offset inside a batch gets the whole batch (the
   * client skips the records before its offset), and every requested partition is answered.
   */
  @Test
  void aFetchInsideABatchGetsTheWholeBatchAndEveryPartitionIsAnswered() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 2);
    MemoryRecords sent = records("r0", "r1", "r2", "r3", "r4");
    try (RawKafka client = connect()) {
      ProduceResponse produced = client.roundTrip(produce((short) 9, topic, 0, sent));
      assertThat(Errors.forCode(onlyPartition(produced).errorCode())).isEqualTo(Errors.NONE);

      FetchResponse answer = client.roundTrip(fetch(topic, 2, 0, 1, 9));
      var partitions = answer.data().responses().get(0).partitions();
      assertThat(partitions).extracting(p -> p.partitionIndex()).containsExactly(0, 1, 9);
      var batches = ((MemoryRecords) partitions.get(0).records()).batches().iterator();
      var batch = batches.next();
      assertThat(batch.baseOffset()).isZero();
      assertThat(batch.lastOffset()).isEqualTo(4);
      assertThat(batches.hasNext()).isFalse();
      ByteBuffer stored = ((MemoryRecords) partitions.get(0).records()).buffer();
      ByteBuffer produce = sent.buffer();
      assertThat(stored.limit()).isEqualTo(produce.limit());
      assertThat(stored.getInt(61)).as("the records' bytes, as sent").isEqualTo(produce.getInt(61));
      assertThat(Errors.forCode(partitions.get(1).errorCode()))
          .as("offset 2 of an empty partition")
          .isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
      assertThat(partitions.get(1).records().sizeInBytes()).isZero();
      assertThat(Errors.forCode(partitions.get(2).errorCode()))
          .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
      assertThat(answer.data().sessionId()).as("no fetch session").isZero();
    }
  }

  @Test
  void aFetchInALeaderEpochFromTheFutureIsUnknownLeaderEpoch() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1);
    FetchRequestData data =
        new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20);
    FetchRequestData.FetchTopic fetchTopic = new FetchRequestData.FetchTopic().setTopic(topic);
    fetchTopic
        .partitions()
        .add(
            new FetchRequestData.FetchPartition()
                .setPartition(0)
                .setFetchOffset(0)
                .setCurrentLeaderEpoch(42)
                .setPartitionMaxBytes(1 << 20));
    data.topics().add(fetchTopic);
    try (RawKafka client = connect()) {
      FetchResponse answer = client.roundTrip(new FetchRequest(data, (short) 12));
      assertThat(Errors.forCode(answer.data().responses().get(0).partitions().get(0).errorCode()))
          .isEqualTo(Errors.UNKNOWN_LEADER_EPOCH);
    }
  }

  // ------------------------------------------------------------------------- idempotent producers

  private static MemoryRecords idempotent(long producerId, int sequence, String... values) {
    SimpleRecord[] records = new SimpleRecord[values.length];
    for (int i = 0; i < values.length; i++) {
      records[i] = new SimpleRecord(values[i].getBytes(StandardCharsets.UTF_8));
    }
    return MemoryRecords.withIdempotentRecords(
        Compression.NONE, producerId, (short) 0, sequence, records);
  }

  /**
   * A retried batch (same producer, epoch and sequence) is answered with its first offset and
   * written once; a batch that skips sequences is OUT_OF_ORDER_SEQUENCE_NUMBER and appends nothing.
   */
  @Test
  void aRetriedIdempotentBatchIsWrittenOnceAndASequenceGapIsRefused() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1);
    try (RawKafka client = connect()) {
      InitProducerIdResponse init =
          client.roundTrip(
              new InitProducerIdRequest.Builder(
                      new InitProducerIdRequestData()
                          .setTransactionalId(null)
                          .setTransactionTimeoutMs(Integer.MAX_VALUE))
                  .build((short) 4));
      assertThat(Errors.forCode(init.data().errorCode())).isEqualTo(Errors.NONE);
      long producerId = init.data().producerId();
      assertThat(producerId).isNotNegative();
      assertThat(init.data().producerEpoch()).isZero();

      ProduceResponse first =
          client.roundTrip(produce((short) 9, topic, 0, idempotent(producerId, 0, "a", "b")));
      ProduceResponse retry =
          client.roundTrip(produce((short) 9, topic, 0, idempotent(producerId, 0, "a", "b")));
      assertThat(Errors.forCode(onlyPartition(retry).errorCode())).isEqualTo(Errors.NONE);
      assertThat(onlyPartition(retry).baseOffset()).isEqualTo(onlyPartition(first).baseOffset());
      ProduceResponse gap =
          client.roundTrip(produce((short) 9, topic, 0, idempotent(producerId, 5, "c")));
      assertThat(Errors.forCode(onlyPartition(gap).errorCode()))
          .isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
    }
    assertThat(endOffset(topic, 0)).isEqualTo(2);
  }

  @Test
  void initProducerIdWithATransactionalIdIsInvalidRequest() throws Exception {
    try (RawKafka client = connect()) {
      InitProducerIdResponse init =
          client.roundTrip(
              new InitProducerIdRequest.Builder(
                      new InitProducerIdRequestData()
                          .setTransactionalId("tx-1")
                          .setTransactionTimeoutMs(60_000))
                  .build((short) 4));
      assertThat(Errors.forCode(init.data().errorCode())).isEqualTo(Errors.INVALID_REQUEST);
      assertThat(init.data().producerId()).isEqualTo(-1);
    }
  }
}
