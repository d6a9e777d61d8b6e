package dev.tributary.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.server.AccessControl;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.ControllerChannel;
import dev.tributary.server.MetadataCache;
import dev.tributary.server.RequestContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/**
 * Brokers' racks ({@code broker.rack}) as Kafka clients see them, in Metadata (v1+; rack-aware
 * consumers and the admin tools read it) and DescribeCluster: broker 1 on rack {@code a}, broker 2
 * without a rack. Requests and answers pass through their wire form at each version.
 */
class BrokerRacksTest {
  private static final MetadataImage IMAGE = image();

  private final MetadataCache metadata = new FixedMetadata(IMAGE);

  private static MetadataImage image() {
    TreeMap<Integer, BrokerImage> brokers = new TreeMap<>();
    brokers.put(1, broker(1, Optional.of("a")));
    brokers.put(2, broker(2, Optional.empty()));
    return new MetadataImage(5, new TreeMap<>(), Map.of(), brokers);
  }

  private static BrokerImage broker(int id, Optional<String> rack) {
    return new BrokerImage(
        id,
        new dev.tributary.common.Uuid(id, id),
        List.of(
            AdvertisedListener.http("b" + id, 8080 + id),
            new AdvertisedListener(
                MetadataApi.KAFKA_LISTENER,
                "b" + id,
                9091 + id,
                AdvertisedListener.SecurityProtocol.PLAINTEXT)),
        10 + id,
        false,
        rack);
  }

  @Test
  void metadataNamesEachBrokersRackFromVersion1() {
    MetadataApi api = new MetadataApi(metadata, AccessControl.ALLOW_ALL, null, null);
    for (int version = 1; version <= api.maxVersion(); version++) {
      MetadataResponse response =
          call(
              api,
              new MetadataRequest.Builder(new MetadataRequestData().setTopics(List.of())),
              version);

      assertThat(response.data().brokers())
          .as("v%d", version)
          .extracting(MetadataResponseBroker::nodeId, MetadataResponseBroker::rack)
          .containsExactly(tuple(1, "a"), tuple(2, null));
    }
  }

  @Test
  void describeClusterNamesEachBrokersRack() {
    DescribeClusterApi api = new DescribeClusterApi(metadata, AccessControl.ALLOW_ALL);
    for (int version = api.minVersion(); version <= api.maxVersion(); version++) {
      DescribeClusterResponse response =
          call(api, new DescribeClusterRequest.Builder(new DescribeClusterRequestData()), version);

      assertThat(response.data().brokers())
          .as("v%d", version)
          .extracting(b -> b.brokerId(), b -> b.rack())
          .containsExactly(tuple(1, "a"), tuple(2, null));
    }
  }

  @SuppressWarnings("unchecked")
  private static <R extends AbstractResponse> R call(
      ApiHandler handler, AbstractRequest.Builder<?> builder, int version) {
    short v = (short) version;
    AbstractRequest sent = builder.build(v);
    AbstractRequest request =
        AbstractRequest.parseRequest(sent.apiKey(), v, sent.serialize()).request;
    KafkaRequestContext context =
        new KafkaRequestContext(
            new RequestHeader(sent.apiKey(), v, "client-1", 1),
            "connection-1",
            MetadataApi.KAFKA_LISTENER,
            new RequestContext("User:alice", "10.0.0.1", false));
    AbstractResponse response = handler.handle(context, request).join();
    return (R)
        AbstractResponse.parseResponse(
            sent.apiKey(), MessageUtil.toByteBufferAccessor(response.data(), v), v);
  }

  /** The cluster as a broker that knows {@code image}, led by broker 1. */
  private record FixedMetadata(MetadataImage image) implements MetadataCache {
    @Override
    public int brokerId() {
      return 1;
    }

    @Override
    public BrokerConfig config() {
      return new BrokerConfig(
          1,
          Path.of("unused"),
          "b1",
          8081,
          false,
          1,
          1,
          30_000,
          5_000,
          "c",
          null,
          "",
          "",
          500,
          3_000);
    }

    @Override
    public MetadataImage metadata() {
      return image;
    }

    @Override
    public String clusterId() {
      return "cluster-1";
    }

    @Override
    public int activeControllerId() {
      return 1;
    }

    @Override
    public long controllerEpoch() {
      return 1;
    }

    @Override
    public Optional<ControllerChannel.Endpoint> brokerEndpoint(int brokerId) {
      return Optional.empty();
    }

    @Override
    public boolean isReady() {
      return true;
    }
  }
}
