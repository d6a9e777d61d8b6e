package dev.tributary.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.Uuid;
import dev.tributary.group.ConsumerProtocol;
import dev.tributary.group.CoordinatorApi;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.group.GroupState;
import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.metadata.AdvertisedListener.SecurityProtocol;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.server.ClientConnections.ClientConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Kafka client connections in the cluster view: each broker's registry rows in its local answer
 * ({@link LocalClients}), as JSON between brokers and to the page, per broker in the cluster view
 * (unknown for a broker that did not answer), and in the live view's deltas. Also how a consumer
 * that joined a group over the Kafka protocol shows as a member.
 *
 * <p>The image: broker 1 (HTTP 8081, KAFKA 9092) and broker 2 (HTTP 8082 only), no topics.
 */
class ClusterSnapshotsClientsTest {
  private final JsonMapper json = JsonMapper.builder().build();

  private static MetadataImage image() {
    TreeMap<Integer, BrokerImage> brokers = new TreeMap<>();
    brokers.put(
        1,
        new BrokerImage(
            1,
            new Uuid(0, 1),
            List.of(
                AdvertisedListener.http("127.0.0.1", 8081),
                new AdvertisedListener("KAFKA", "127.0.0.1", 9092, SecurityProtocol.PLAINTEXT)),
            10,
            false));
    brokers.put(2, new BrokerImage(2, new Uuid(0, 2), "127.0.0.1", 8082, 11, false));
    return new MetadataImage(7, new TreeMap<>(), Map.of(), brokers);
  }

  private static ClientConnection producer(String id, long sinceMs, long produced) {
    return new ClientConnection(
        id,
        "KAFKA",
        "PLAINTEXT",
        "127.0.0.1:5000" + id.length(),
        "producer-1",
        "apache-kafka-java",
        "4.4.0",
        "User:ANONYMOUS",
        sinceMs,
        sinceMs + 5,
        Map.of("Produce", produced, "ApiVersions", 1L, "Metadata", 2L));
  }

  private static LocalSnapshot answer(int brokerId, List<ClientConnection> open) {
    return new LocalSnapshot("local", brokerId, List.of())
        .withClientConnections(open.size(), LocalClients.connections(open));
  }

  private static ClusterSnapshot merge(Map<Integer, LocalSnapshot> answers, Set<Integer> silent) {
    return ClusterSnapshots.merge(
        new ClusterSnapshots.Context("c-1", 1, 1, 3, 1_000, false, 1),
        image(),
        answers,
        silent,
        Map.of());
  }

  @Test
  void aBrokersConnectionsShowUnderItWithTheirClientsAndRequestTotals() {
    ClusterSnapshot view =
        merge(
            Map.of(1, answer(1, List.of(producer("c-1", 100, 7), producer("c-22", 200, 0)))),
            Set.of(2));

    ClusterSnapshot.BrokerRow one = view.brokers().get(0);
    assertThat(one.clientConnectionCount()).isEqualTo(2);
    assertThat(one.clientConnections())
        .extracting(ClusterSnapshot.ClientConnectionRow::connectionId)
        .containsExactly("c-1", "c-22");
    ClusterSnapshot.ClientConnectionRow first = one.clientConnections().get(0);
    assertThat(first)
        .isEqualTo(
            new ClusterSnapshot.ClientConnectionRow(
                "c-1",
                "producer-1",
                "apache-kafka-java",
                "4.4.0",
                "127.0.0.1:50003",
                "User:ANONYMOUS",
                "PLAINTEXT",
                100,
                105,
                Map.of("ApiVersions", 1L, "Metadata", 2L, "Produce", 7L),
                10));
    assertThat(one.listeners())
        .containsExactly(
            new ClusterSnapshot.ListenerRow("HTTP", "127.0.0.1", 8081, "PLAINTEXT"),
            new ClusterSnapshot.ListenerRow("KAFKA", "127.0.0.1", 9092, "PLAINTEXT"));

    ClusterSnapshot.BrokerRow two = view.brokers().get(1);
    assertThat(two.reachable()).isFalse();
    assertThat(two.clientConnectionCount()).as("it did not answer: unknown, not 0").isNull();
    assertThat(two.clientConnections()).isNull();
  }

  @Test
  void aBrokerThatPredatesConnectionsShowsThemUnknownAndOneWithoutClientsShowsZero() {
    ClusterSnapshot view =
        merge(
            Map.of(1, answer(1, List.of()), 2, new LocalSnapshot("local", 2, List.of())), Set.of());

    assertThat(view.brokers().get(0).clientConnectionCount()).isZero();
    assertThat(view.brokers().get(0).clientConnections()).isEmpty();
    assertThat(view.brokers().get(1).clientConnectionCount()).isNull();
    assertThat(view.brokers().get(1).clientConnections()).isNull();
  }

  @Test
  void anAnswerListsTheOldestConnectionsUpToTheLimitAndCountsThemAll() {
    List<ClientConnection> open = new ArrayList<>();
    for (int i = 0; i < LocalClients.MAX_CONNECTIONS + 5; i++) {
      open.add(producer("c-" + i, i, 1));
    }

    LocalSnapshot sent = answer(1, open);

    assertThat(sent.clientConnectionCount()).isEqualTo(LocalClients.MAX_CONNECTIONS + 5);
    assertThat(sent.clientConnections()).hasSize(LocalClients.MAX_CONNECTIONS);
    assertThat(sent.clientConnections().get(LocalClients.MAX_CONNECTIONS - 1).connectionId())
        .isEqualTo("c-" + (LocalClients.MAX_CONNECTIONS - 1));
  }

  /** The local answer is what other brokers read: the same rows back, and stable bytes. */
  @Test
  void theLocalAnswerRoundTripsThroughJsonWithRequestsSortedByApi() {
    LocalSnapshot sent = answer(1, List.of(producer("c-1", 100, 7)));

    String written = json.writeValueAsString(sent);

    assertThat(json.readValue(written, LocalSnapshot.class)).isEqualTo(sent);
    assertThat(json.writeValueAsString(json.readValue(written, LocalSnapshot.class)))
        .as("equal answers are equal bytes (the ETag)")
        .isEqualTo(written);
    JsonNode tree = json.readTree(written);
    assertThat(tree.get("client_connection_count").asInt()).isEqualTo(1);
    JsonNode connection = tree.get("client_connections").get(0);
    assertThat(connection.get("client_id").asString()).isEqualTo("producer-1");
    assertThat(connection.get("software_name").asString()).isEqualTo("apache-kafka-java");
    assertThat(connection.get("software_version").asString()).isEqualTo("4.4.0");
    assertThat(connection.get("client_address").asString()).isEqualTo("127.0.0.1:50003");
    assertThat(connection.get("principal").asString()).isEqualTo("User:ANONYMOUS");
    assertThat(connection.get("connected_since_ms").asLong()).isEqualTo(100);
    assertThat(connection.get("requests").propertyNames())
        .containsExactly("ApiVersions", "Metadata", "Produce");
    assertThat(written).contains("\"requests\":{\"ApiVersions\":1,\"Metadata\":2,\"Produce\":7}");
  }

  @Test
  void theClusterViewCarriesConnectionsAndListenersInEachBrokersJson() {
    JsonNode broker =
        json.readTree(
                json.writeValueAsString(
                    merge(Map.of(1, answer(1, List.of(producer("c-1", 100, 7)))), Set.of(2))))
            .get("brokers")
            .get(0);

    assertThat(broker.get("client_connection_count").asInt()).isEqualTo(1);
    JsonNode connection = broker.get("client_connections").get(0);
    assertThat(connection.get("client_id").asString()).isEqualTo("producer-1");
    assertThat(connection.get("request_count").asLong()).isEqualTo(10);
    assertThat(connection.get("requests").get("Produce").asLong()).isEqualTo(7);
    assertThat(broker.get("listeners").get(1).get("name").asString()).isEqualTo("KAFKA");
    assertThat(broker.get("listeners").get(1).get("port").asInt()).isEqualTo(9092);
  }

  @Test
  void theLiveViewSendsABrokerAgainWhenOneOfItsConnectionsSentARequest() {
    ClusterSnapshot before =
        merge(Map.of(1, answer(1, List.of(producer("c-1", 100, 7)))), Set.of(2));
    ClusterSnapshot same = merge(Map.of(1, answer(1, List.of(producer("c-1", 100, 7)))), Set.of(2));
    ClusterSnapshot after =
        merge(Map.of(1, answer(1, List.of(producer("c-1", 100, 8)))), Set.of(2));

    assertThat(DashboardMessages.between(before, same)).isEmpty();
    DashboardMessages.Delta delta = DashboardMessages.between(before, after).orElseThrow();
    assertThat(delta.brokers()).extracting(ClusterSnapshot.BrokerRow::brokerId).containsExactly(1);
    assertThat(delta.brokers().get(0).clientConnections().get(0).requestCount()).isEqualTo(11);
  }

  /**
   * A Kafka consumer's member id is its client id and a UUID, its host its address as Kafka writes
   * it; both reach the page untouched (the page tells it from a REST member by its host).
   */
  @Test
  void aConsumerThatJoinedOverTheKafkaProtocolShowsWithItsMemberIdClientIdAndAddress() {
    String memberId = "consumer-readers-1-0b6b3d5e-49d3-4f43-a1c0-1f1bd5a0c1b2";
    CoordinatorApi.MemberDescription member =
        new CoordinatorApi.MemberDescription(
            memberId,
            "consumer-readers-1",
            "/127.0.0.1",
            new byte[0],
            ConsumerProtocol.encodeAssignment(List.of(new TopicPartition("orders", 0))));
    GroupCoordinator.LoadedGroup readers =
        new GroupCoordinator.LoadedGroup(
            new CoordinatorApi.GroupDescription(
                "readers", GroupState.STABLE, "consumer", "range", 1, memberId, List.of(member), 0),
            Map.of(),
            5_000);
    LocalSnapshot answer =
        answer(1, List.of()).withGroups(LocalGroups.groups(List.of(readers)), List.of());

    ClusterSnapshot.GroupRow row = merge(Map.of(1, answer), Set.of(2)).groups().get(0);

    assertThat(row.leaderId()).isEqualTo(memberId);
    assertThat(row.members())
        .containsExactly(
            new ClusterSnapshot.GroupMemberRow(
                memberId, "consumer-readers-1", "/127.0.0.1", List.of("orders-0")));
  }
}
