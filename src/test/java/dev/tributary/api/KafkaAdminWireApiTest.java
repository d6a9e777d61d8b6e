package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.kafka.KafkaListener;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsTopic;
import org.apache.kafka.common.message.ElectLeadersResponseData.PartitionResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterConfigsRequest;
import org.apache.kafka.common.requests.AlterConfigsResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.DescribeLogDirsRequest;
import org.apache.kafka.common.requests.DescribeLogDirsResponse;
import org.apache.kafka.common.requests.ElectLeadersRequest;
import org.apache.kafka.common.requests.ElectLeadersResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The admin APIs frame by frame, for what kafka-clients' Admin cannot send: the old AlterConfigs, a
 * topic named twice, old versions and unusual fields (the old AlterConfigs of a broker,
 * DescribeLogDirs v1 and v4); and the versions ApiVersions advertises.
 */
class KafkaAdminWireApiTest extends ApiTestSupport {
  @Autowired KafkaListener kafka;

  @SuppressWarnings("unchecked")
  private <T> T send(org.apache.kafka.common.requests.AbstractRequest request) throws Exception {
    return (T) KafkaWire.send(kafka.port(), request);
  }

  private int brokerId() {
    return expectOk(get(v3("/brokers"))).get("data").get(0).get("broker_id").intValue();
  }

  private String restConfig(String topic, String name) {
    return expectOk(get(v3("/topics/" + topic + "/configs/" + name))).get("value").stringValue();
  }

  private DescribeConfigsResult describe(ConfigResource.Type type, String name, List<String> keys)
      throws Exception {
    DescribeConfigsRequestData data = new DescribeConfigsRequestData();
    data.resources()
        .add(
            new DescribeConfigsRequestData.DescribeConfigsResource()
                .setResourceType(type.id())
                .setResourceName(name)
                .setConfigurationKeys(keys));
    DescribeConfigsResponse response =
        send(new DescribeConfigsRequest.Builder(data).build((short) 4));
    return response.data().results().get(0);
  }

  @Test
  void apiVersionsAdvertisesExactlyTheAdminVersionsImplemented() throws Exception {
    ApiVersionsResponse response =
        send(new ApiVersionsRequest.Builder().build(ApiKeys.API_VERSIONS.latestVersion()));

    Map<ApiKeys, String> expected =
        Map.ofEntries(
            Map.entry(ApiKeys.CREATE_TOPICS, "2-7"),
            Map.entry(ApiKeys.DELETE_TOPICS, "1-6"),
            Map.entry(ApiKeys.CREATE_PARTITIONS, "0-3"),
            Map.entry(ApiKeys.DESCRIBE_CONFIGS, "1-4"),
            Map.entry(ApiKeys.ALTER_CONFIGS, "0-2"),
            Map.entry(ApiKeys.INCREMENTAL_ALTER_CONFIGS, "0-1"),
            Map.entry(ApiKeys.DESCRIBE_CLUSTER, "0-2"),
            Map.entry(ApiKeys.ELECT_LEADERS, "0-2"),
            Map.entry(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, "0-1"),
            Map.entry(ApiKeys.LIST_PARTITION_REASSIGNMENTS, "0-0"),
            Map.entry(ApiKeys.DESCRIBE_LOG_DIRS, "1-5"));
    expected.forEach(
        (api, range) -> {
          ApiVersion advertised = response.data().apiKeys().find(api.id);
          assertThat(advertised).as(api.name).isNotNull();
          assertThat(advertised.minVersion() + "-" + advertised.maxVersion())
              .as(api.name)
              .isEqualTo(range);
        });
  }

  @Test
  void theOldAlterConfigsReplacesEveryConfigOfATopic() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1, "[{\"name\":\"retention.ms\",\"value\":\"1000\"}]");
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);

    AlterConfigsResponse validated =
        send(
            new AlterConfigsRequest.Builder(
                    Map.of(
                        resource,
                        new AlterConfigsRequest.Config(
                            List.of(new AlterConfigsRequest.ConfigEntry("segment.ms", "7000")))),
                    true)
                .build((short) 0));
    assertThat(validated.errors().get(resource).error()).isEqualTo(Errors.NONE);
    assertThat(restConfig(topic, "retention.ms")).as("only validated").isEqualTo("1000");

    AlterConfigsResponse replaced =
        send(
            new AlterConfigsRequest.Builder(
                    Map.of(
                        resource,
                        new AlterConfigsRequest.Config(
                            List.of(new AlterConfigsRequest.ConfigEntry("segment.ms", "7000")))),
                    false)
                .build((short) 2));

    assertThat(replaced.errors().get(resource).error()).isEqualTo(Errors.NONE);
    assertThat(restConfig(topic, "segment.ms")).isEqualTo("7000");
    assertThat(restConfig(topic, "retention.ms"))
        .as("left out: back to its default")
        .isEqualTo("604800000");
    DescribeConfigsResourceResult retention =
        describe(ConfigResource.Type.TOPIC, topic, List.of("retention.ms")).configs().get(0);
    assertThat(retention.value()).isEqualTo("604800000");

    AlterConfigsResponse invalid =
        send(
            new AlterConfigsRequest.Builder(
                    Map.of(
                        resource,
                        new AlterConfigsRequest.Config(
                            List.of(new AlterConfigsRequest.ConfigEntry("segment.ms", "-1")))),
                    false)
                .build((short) 2));
    assertThat(invalid.errors().get(resource).error()).isEqualTo(Errors.INVALID_CONFIG);
    assertThat(restConfig(topic, "segment.ms")).isEqualTo("7000");
  }

  @Test
  void theOldAlterConfigsOfABrokerChangesNothingAndRefusesAValue() throws Exception {
    ConfigResource broker =
        new ConfigResource(ConfigResource.Type.BROKER, String.valueOf(brokerId()));

    AlterConfigsRequest nullValue =
        new AlterConfigsRequest.Builder(
                Map.of(
                    broker,
                    new AlterConfigsRequest.Config(
                        List.of(
                            new AlterConfigsRequest.ConfigEntry(
                                "leader.replication.throttled.rate", "0")))),
                false)
            .build((short) 2);
    // kafka-clients' entry takes no null value; the wire does
    nullValue.data().resources().iterator().next().configs().iterator().next().setValue(null);
    AlterConfigsResponse nothing = send(nullValue);
    assertThat(nothing.errors().get(broker).error())
        .as("a null value is left out of the broker's set: no override, nothing to remove")
        .isEqualTo(Errors.NONE);

    AlterConfigsResponse set =
        send(
            new AlterConfigsRequest.Builder(
                    Map.of(
                        broker,
                        new AlterConfigsRequest.Config(
                            List.of(
                                new AlterConfigsRequest.ConfigEntry(
                                    "leader.replication.throttled.rate", "1000")))),
                    false)
                .build((short) 2));
    assertThat(set.errors().get(broker).error()).isEqualTo(Errors.NONE);
    assertThat(expectBrokerConfig("leader.replication.throttled.rate")).isEqualTo("1000");

    AlterConfigsResponse refused =
        send(
            new AlterConfigsRequest.Builder(
                    Map.of(
                        broker,
                        new AlterConfigsRequest.Config(
                            List.of(new AlterConfigsRequest.ConfigEntry("log.retention.ms", "1")))),
                    false)
                .build((short) 2));
    assertThat(refused.errors().get(broker).error()).isEqualTo(Errors.INVALID_REQUEST);
    assertThat(refused.errors().get(broker).message())
        .startsWith("Cannot update these configs dynamically: [log.retention.ms]");
    assertThat(expectBrokerConfig("leader.replication.throttled.rate"))
        .as("a refused request changes nothing")
        .isEqualTo("1000");

    AlterConfigsResponse emptied =
        send(
            new AlterConfigsRequest.Builder(
                    Map.of(broker, new AlterConfigsRequest.Config(List.of())), false)
                .build((short) 2));
    assertThat(emptied.errors().get(broker).error()).isEqualTo(Errors.NONE);
    assertThat(expectBrokerConfig("leader.replication.throttled.rate"))
        .as("the old API sets the whole set: the rate left out is removed")
        .isEqualTo(String.valueOf(Long.MAX_VALUE));
  }

  /** The value this broker describes for its config {@code name} (DescribeConfigs v4). */
  private String expectBrokerConfig(String name) throws Exception {
    ConfigResource broker =
        new ConfigResource(ConfigResource.Type.BROKER, String.valueOf(brokerId()));
    DescribeConfigsResponse described =
        send(
            new DescribeConfigsRequest.Builder(
                    new DescribeConfigsRequestData()
                        .setResources(
                            List.of(
                                new DescribeConfigsRequestData.DescribeConfigsResource()
                                    .setResourceType(broker.type().id())
                                    .setResourceName(broker.name())
                                    .setConfigurationKeys(List.of(name)))))
                .build((short) 4));
    return described.data().results().get(0).configs().get(0).value();
  }

  @Test
  void describeLogDirsAnswersEveryVersionTheClientsSend() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1);
    produceJson(topic, "{\"records\":[{\"value\":\"a\"}]}");

    DescribeLogDirsResponse v1 =
        send(
            new DescribeLogDirsRequest.Builder(new DescribeLogDirsRequestData().setTopics(null))
                .build((short) 1));
    assertThat(v1.data().results()).hasSize(1);
    DescribeLogDirsResult all = v1.data().results().get(0);
    assertThat(all.errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(all.totalBytes())
        .as("not in v1")
        .isEqualTo(DescribeLogDirsResponse.UNKNOWN_VOLUME_BYTES);
    assertThat(all.topics()).extracting(DescribeLogDirsTopic::name).contains(topic);

    DescribeLogDirsRequestData named = new DescribeLogDirsRequestData();
    named
        .topics()
        .add(
            new DescribeLogDirsRequestData.DescribableLogDirTopic()
                .setTopic(topic)
                .setPartitions(List.of(0, 5)));
    DescribeLogDirsResponse v4 = send(new DescribeLogDirsRequest.Builder(named).build((short) 4));
    DescribeLogDirsResult result = v4.data().results().get(0);
    assertThat(result.logDir()).isEqualTo(all.logDir());
    assertThat(result.totalBytes()).isPositive();
    assertThat(result.topics()).extracting(DescribeLogDirsTopic::name).containsExactly(topic);
    assertThat(result.topics().get(0).partitions())
        .as("partition 5 does not exist: left out")
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.partitionIndex()).isZero();
              assertThat(p.partitionSize()).isPositive();
              assertThat(p.offsetLag()).isZero();
              assertThat(p.isFutureKey()).isFalse();
            });
  }

  @Test
  void aTopicNamedTwiceIsRefusedAndTheOthersAreCreated() throws Exception {
    String twice = newTopicName();
    String once = newTopicName();
    CreateTopicsRequestData data = new CreateTopicsRequestData().setTimeoutMs(10_000);
    for (String name : List.of(twice, once, twice)) {
      data.topics()
          .add(
              new CreateTopicsRequestData.CreatableTopic()
                  .setName(name)
                  .setNumPartitions(1)
                  .setReplicationFactor((short) 1));
    }

    CreateTopicsResponse response = send(new CreateTopicsRequest.Builder(data).build((short) 2));

    assertThat(response.data().topics())
        .extracting(CreatableTopicResult::name, CreatableTopicResult::errorCode)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(twice, Errors.INVALID_REQUEST.code()),
            org.assertj.core.groups.Tuple.tuple(once, Errors.NONE.code()),
            org.assertj.core.groups.Tuple.tuple(twice, Errors.INVALID_REQUEST.code()));
    assertThat(get(v3("/topics/" + twice)).status()).isEqualTo(404);
    assertThat(get(v3("/topics/" + once)).status()).isEqualTo(200);
  }

  @Test
  void aDeleteNamingATopicByNameAndIdOrTwiceIsRefused() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1);
    DeleteTopicsRequestData data = new DeleteTopicsRequestData().setTimeoutMs(10_000);
    data.topics()
        .add(
            new DeleteTopicsRequestData.DeleteTopicState()
                .setName(topic)
                .setTopicId(Uuid.randomUuid()));
    data.topics().add(new DeleteTopicsRequestData.DeleteTopicState().setTopicId(Uuid.randomUuid()));

    DeleteTopicsResponse response = send(new DeleteTopicsRequest.Builder(data).build((short) 6));

    assertThat(response.data().responses())
        .extracting(DeletableTopicResult::errorCode)
        .containsExactly(Errors.INVALID_REQUEST.code(), Errors.UNKNOWN_TOPIC_ID.code());
    assertThat(get(v3("/topics/" + topic)).status()).isEqualTo(200);

    DeleteTopicsResponse old =
        send(
            new DeleteTopicsRequest.Builder(
                    new DeleteTopicsRequestData()
                        .setTopicNames(List.of(topic))
                        .setTimeoutMs(10_000))
                .build((short) 1));
    assertThat(old.data().responses().find(topic).errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(get(v3("/topics/" + topic)).status()).isEqualTo(404);
  }

  @Test
  void describeConfigsAnswersTheKeysAskedForAndRefusesOtherBrokersAndResourceTypes()
      throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1);

    assertThat(describe(ConfigResource.Type.TOPIC, topic, List.of("segment.ms", "nope")).configs())
        .extracting(DescribeConfigsResourceResult::name)
        .containsExactly("segment.ms");
    assertThat(
            describe(ConfigResource.Type.BROKER, String.valueOf(brokerId() + 1), null).errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(
            describe(ConfigResource.Type.BROKER_LOGGER, String.valueOf(brokerId()), null)
                .errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(describe(ConfigResource.Type.BROKER, "", null).configs())
        .as("cluster-wide defaults set at run time: none")
        .isEmpty();
  }

  @Test
  void describeClusterAnswersOnlyForBrokers() throws Exception {
    DescribeClusterResponse v0 =
        send(new DescribeClusterRequest.Builder(new DescribeClusterRequestData()).build((short) 0));
    assertThat(v0.data().errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(v0.nodes()).containsOnlyKeys(brokerId());

    DescribeClusterResponse controllers =
        send(
            new DescribeClusterRequest.Builder(
                    new DescribeClusterRequestData().setEndpointType((byte) 2))
                .build((short) 1));
    assertThat(controllers.data().errorCode()).isEqualTo(Errors.MISMATCHED_ENDPOINT_TYPE.code());
  }

  @Test
  void electLeadersV0ElectsThePreferredReplicaAndUncleanIsAnInvalidRequest() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1);
    TopicPartition partition = new TopicPartition(topic, 0);

    ElectLeadersResponse v0 =
        send(
            new ElectLeadersRequest.Builder(ElectionType.PREFERRED, Set.of(partition), 10_000)
                .build((short) 0));
    assertThat(v0.data().replicaElectionResults().get(0).partitionResult())
        .extracting(PartitionResult::errorCode)
        .containsExactly(Errors.ELECTION_NOT_NEEDED.code());

    ElectLeadersResponse unclean =
        send(
            new ElectLeadersRequest.Builder(ElectionType.UNCLEAN, Set.of(partition), 10_000)
                .build((short) 2));
    assertThat(unclean.data().errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(unclean.data().replicaElectionResults().get(0).partitionResult())
        .extracting(PartitionResult::errorCode)
        .containsExactly(Errors.INVALID_REQUEST.code());
  }
}
