package dev.tributary.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.Uuid;
import dev.tributary.group.ConsumerProtocol;
import dev.tributary.group.CoordinatorApi;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.group.GroupEvent;
import dev.tributary.group.GroupState;
import dev.tributary.group.OffsetAndMetadata;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * Consumer groups in the cluster view: each coordinator's groups ({@link LocalGroups}) merged into
 * one row per group with committed offsets and lag ({@link ClusterGroups}), the coordinators'
 * events interleaved by time, and the rows diffed by group id ({@link DashboardMessages}).
 *
 * <p>The image: brokers 1 and 2; orders-0 led by 1, orders-1 by 2; {@code __consumer_offsets-0} led
 * by 2 (so broker 2 coordinates the groups stored there), {@code -1} led by 1.
 */
class ClusterSnapshotsGroupsTest {
  private final JsonMapper json = JsonMapper.builder().build();

  private static MetadataImage image() {
    TreeMap<Integer, PartitionImage> orders = new TreeMap<>();
    orders.put(0, new PartitionImage(0, List.of(1, 2), List.of(1, 2), 1, 0, 0));
    orders.put(1, new PartitionImage(1, List.of(2, 1), List.of(2, 1), 2, 0, 0));
    TreeMap<Integer, PartitionImage> offsetsTopic = new TreeMap<>();
    offsetsTopic.put(0, new PartitionImage(0, List.of(2, 1), List.of(2, 1), 2, 3, 3));
    offsetsTopic.put(1, new PartitionImage(1, List.of(1, 2), List.of(1, 2), 1, 0, 0));
    TreeMap<String, TopicImage> topics = new TreeMap<>();
    Uuid ordersId = new Uuid(1, 1);
    Uuid offsetsId = new Uuid(1, 2);
    topics.put("orders", new TopicImage(ordersId, "orders", orders, Map.of()));
    topics.put(
        "__consumer_offsets",
        new TopicImage(offsetsId, "__consumer_offsets", offsetsTopic, Map.of()));
    TreeMap<Integer, BrokerImage> brokers = new TreeMap<>();
    brokers.put(1, new BrokerImage(1, new Uuid(0, 1), "127.0.0.1", 8081, 10, false));
    brokers.put(2, new BrokerImage(2, new Uuid(0, 2), "127.0.0.1", 8082, 11, false));
    return new MetadataImage(
        50, topics, Map.of(ordersId, "orders", offsetsId, "__consumer_offsets"), brokers);
  }

  /** A broker's answer leading {@code orders-<led>} at high watermark {@code hw}, log start 2. */
  private static LocalSnapshot answer(int brokerId, int led, long hw) {
    return new LocalSnapshot(
        "local",
        brokerId,
        List.of(
            new LocalSnapshot.LocalPartition(
                "orders",
                led,
                true,
                0,
                new LocalSnapshot.Offsets(2, hw, hw, 0, 1, "", List.of()))));
  }

  /**
   * Group {@code g}, stored in {@code __consumer_offsets-0}: member m1 (REST instance c1 on broker
   * 1) reads orders-0 and orders-1; orders-0 has committed 7, orders-1 nothing yet.
   */
  private static GroupCoordinator.LoadedGroup stableGroup(int generation) {
    CoordinatorApi.MemberDescription m1 =
        new CoordinatorApi.MemberDescription(
            "c1-m1",
            "c1",
            "broker-1",
            new byte[0],
            ConsumerProtocol.encodeAssignment(
                List.of(new TopicPartition("orders", 1), new TopicPartition("orders", 0))));
    return new GroupCoordinator.LoadedGroup(
        new CoordinatorApi.GroupDescription(
            "g", GroupState.STABLE, "consumer", "range", generation, "c1-m1", List.of(m1), 0),
        Map.of(new TopicPartition("orders", 0), new OffsetAndMetadata(7, 0, "", 12_345)),
        5_000);
  }

  private static LocalSnapshot withGroups(
      LocalSnapshot answer, List<GroupCoordinator.LoadedGroup> groups, List<GroupEvent> events) {
    return answer.withGroups(LocalGroups.groups(groups), LocalGroups.events(events));
  }

  private static ClusterSnapshot merge(Map<Integer, LocalSnapshot> answers) {
    return ClusterSnapshots.merge(
        new ClusterSnapshots.Context("c-1", 1, 1, 3, 1_000, false, 1),
        image(),
        answers,
        Set.of(),
        Map.of());
  }

  @Test
  void aGroupShowsItsStateMembersAssignmentAndPerPartitionCommittedOffsetAndLag() {
    ClusterSnapshot view =
        merge(
            Map.of(
                1, answer(1, 0, 10),
                2, withGroups(answer(2, 1, 20), List.of(stableGroup(4)), List.of())));

    assertThat(view.groups()).hasSize(1);
    ClusterSnapshot.GroupRow g = view.groups().get(0);
    assertThat(g.groupId()).isEqualTo("g");
    assertThat(g.state()).isEqualTo("Stable");
    assertThat(g.generationId()).isEqualTo(4);
    assertThat(g.protocol()).isEqualTo("range");
    assertThat(g.coordinator()).isEqualTo(2);
    assertThat(g.coordinatorPartition()).isEqualTo(0);
    assertThat(g.members())
        .containsExactly(
            new ClusterSnapshot.GroupMemberRow(
                "c1-m1", "c1", "broker-1", List.of("orders-0", "orders-1")));
    assertThat(g.partitions())
        .containsExactly(
            new ClusterSnapshot.GroupPartitionRow("orders-0", "orders", 0, "c1-m1", 7L, 10L, 3L),
            new ClusterSnapshot.GroupPartitionRow(
                "orders-1", "orders", 1, "c1-m1", null, 20L, 18L)); // nothing committed: from 2
  }

  @Test
  void lagIsUnknownWhileThePartitionsLeaderDoesNotAnswer() {
    ClusterSnapshot view =
        merge(Map.of(2, withGroups(answer(2, 1, 20), List.of(stableGroup(4)), List.of())));

    ClusterSnapshot.GroupPartitionRow orders0 = view.groups().get(0).partitions().get(0);
    assertThat(orders0.committedOffset()).isEqualTo(7);
    assertThat(orders0.highWatermark()).isNull();
    assertThat(orders0.lag()).isNull();
  }

  @Test
  void whileTheCoordinatorMovesTheCopyOfTheOffsetsPartitionsLeaderWins() {
    // Broker 1 still holds generation 3 (it led __consumer_offsets-0 before); broker 2 leads it
    // now.
    LocalSnapshot old = withGroups(answer(1, 0, 10), List.of(stableGroup(3)), List.of());
    LocalSnapshot current = withGroups(answer(2, 1, 20), List.of(stableGroup(4)), List.of());

    ClusterSnapshot both = merge(Map.of(1, old, 2, current));
    ClusterSnapshot onlyOld = merge(Map.of(1, old));

    assertThat(both.groups()).hasSize(1);
    assertThat(both.groups().get(0).generationId()).isEqualTo(4);
    assertThat(both.groups().get(0).coordinator()).isEqualTo(2);
    assertThat(onlyOld.groups().get(0).coordinator())
        .as("the leader did not answer: the copy there is")
        .isEqualTo(1);
  }

  @Test
  void groupEventsOfAllCoordinatorsAreInterleavedByTimeAndMarkedWithTheirBroker() {
    GroupEvent loaded =
        new GroupEvent(100, "", -1, GroupEvent.Type.COORDINATOR_LOADED, "loaded -0");
    GroupEvent started =
        new GroupEvent(300, "g", 3, GroupEvent.Type.REBALANCE_STARTED, "started: c1 joined");
    GroupEvent removed =
        new GroupEvent(200, "h", 1, GroupEvent.Type.MEMBER_REMOVED, "removed: session expired");
    ClusterSnapshot view =
        merge(
            Map.of(
                2, withGroups(answer(2, 1, 20), List.of(), List.of(loaded, started)),
                1, withGroups(answer(1, 0, 10), List.of(), List.of(removed))));

    assertThat(view.groupEvents())
        .containsExactly(
            new ClusterSnapshot.GroupEventRow(
                100, "coordinator_loaded", "", -1, 2, "loaded -0", Map.of()),
            new ClusterSnapshot.GroupEventRow(
                200, "member_removed", "h", 1, 1, "removed: session expired", Map.of()),
            new ClusterSnapshot.GroupEventRow(
                300, "rebalance_started", "g", 3, 2, "started: c1 joined", Map.of()));
  }

  @Test
  void aGroupEventNamesItsMembersClientIdsThroughTheTripBetweenBrokersAndInTheJson() {
    String memberId = "consumer-1-0f3c1b8e-7a2d-4c55-9e61-5d7be01aa3f2";
    GroupEvent removed =
        new GroupEvent(
            200,
            "g",
            1,
            GroupEvent.Type.MEMBER_REMOVED,
            "member " + memberId + " removed from group g: it left the group",
            Map.of(memberId, "consumer-1"));
    LocalSnapshot answer = withGroups(answer(2, 1, 20), List.of(), List.of(removed));
    LocalSnapshot travelled = json.readValue(json.writeValueAsString(answer), LocalSnapshot.class);

    ClusterSnapshot view = merge(Map.of(2, travelled));

    assertThat(view.groupEvents())
        .singleElement()
        .satisfies(e -> assertThat(e.members()).containsExactly(Map.entry(memberId, "consumer-1")));
    assertThat(
            json.readTree(json.writeValueAsString(view)).get("group_events").get(0).get("members"))
        .hasToString("{\"" + memberId + "\":\"consumer-1\"}");
  }

  @Test
  void aGroupEventFromABrokerThatPredatesMembersNamesNone() {
    GroupEvent empty = new GroupEvent(5, "g", 1, GroupEvent.Type.GROUP_EMPTY, "group g is empty");
    tools.jackson.databind.node.ObjectNode tree =
        (tools.jackson.databind.node.ObjectNode)
            json.readTree(
                json.writeValueAsString(withGroups(answer(2, 1, 20), List.of(), List.of(empty))));
    ((tools.jackson.databind.node.ObjectNode) tree.get("group_events").get(0)).remove("members");
    LocalSnapshot answer = json.treeToValue(tree, LocalSnapshot.class);

    assertThat(merge(Map.of(2, answer)).groupEvents())
        .singleElement()
        .satisfies(e -> assertThat(e.members()).isEmpty());
  }

  @Test
  void theViewKeepsTheNewestGroupEventsOnly() {
    List<GroupEvent> many = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      many.add(new GroupEvent(i, "g", i, GroupEvent.Type.REBALANCE_STARTED, "e" + i));
    }
    ClusterSnapshot view =
        merge(
            Map.of(
                1, withGroups(answer(1, 0, 10), List.of(), many),
                2, withGroups(answer(2, 1, 20), List.of(), many)));

    assertThat(view.groupEvents()).hasSize(ClusterGroups.MAX_GROUP_EVENTS);
    assertThat(view.groupEvents().get(view.groupEvents().size() - 1).timestampMs()).isEqualTo(149);
  }

  @Test
  void aGroupsRowLeavesOutCommitTimesSoRecommittingTheSameOffsetIsNoChange() {
    GroupCoordinator.LoadedGroup first = stableGroup(4);
    GroupCoordinator.LoadedGroup recommitted =
        new GroupCoordinator.LoadedGroup(
            first.group(),
            Map.of(new TopicPartition("orders", 0), new OffsetAndMetadata(7, 0, "", 99_999)),
            first.stateTimestampMs());

    assertThat(LocalGroups.group(recommitted)).isEqualTo(LocalGroups.group(first));
  }

  @Test
  void anAssignmentThatIsNotTheConsumerProtocolShowsNoPartitionsRatherThanFailing() {
    assertThat(LocalGroups.assignment(new byte[] {1, 2, 3})).isEmpty();
    assertThat(LocalGroups.assignment(null)).isEmpty();
  }

  @Test
  void groupsSurviveTheTripBetweenBrokers() {
    LocalSnapshot sent =
        withGroups(
            answer(2, 1, 20),
            List.of(stableGroup(4)),
            List.of(new GroupEvent(1, "g", 4, GroupEvent.Type.REBALANCE_COMPLETED, "done")));
    String written = json.writeValueAsString(sent);

    assertThat(json.readValue(written, LocalSnapshot.class)).isEqualTo(sent);
    assertThat(json.readTree(written).get("groups").get(0).get("state").asString())
        .isEqualTo("Stable");
  }

  @Test
  void deltasCarryOnlyTheChangedGroupsTheRemovedIdsAndNewGroupEvents() {
    GroupEvent e1 = new GroupEvent(100, "g", 4, GroupEvent.Type.REBALANCE_COMPLETED, "gen 4");
    GroupEvent late = new GroupEvent(50, "h", 1, GroupEvent.Type.GROUP_EMPTY, "h empty");
    ClusterSnapshot idle =
        merge(
            Map.of(
                1, answer(1, 0, 10),
                2, withGroups(answer(2, 1, 20), List.of(stableGroup(4)), List.of(e1))));
    ClusterSnapshot again =
        merge(
            Map.of(
                1, answer(1, 0, 10),
                2, withGroups(answer(2, 1, 20), List.of(stableGroup(4)), List.of(e1))));
    assertThat(DashboardMessages.between(idle, again)).as("an idle group is no delta").isEmpty();

    ClusterSnapshot consumed =
        merge(
            Map.of(
                1, withGroups(answer(1, 0, 10), List.of(), List.of(late)),
                2, withGroups(answer(2, 1, 25), List.of(stableGroup(4)), List.of(e1))));
    DashboardMessages.Delta delta = DashboardMessages.between(idle, consumed).orElseThrow();
    assertThat(delta.groups()).extracting(ClusterSnapshot.GroupRow::groupId).containsExactly("g");
    assertThat(delta.groups().get(0).partitions().get(1).lag()).isEqualTo(23);
    assertThat(delta.groupEvents())
        .as("an older event from a late answer is still new")
        .extracting(ClusterSnapshot.GroupEventRow::text)
        .containsExactly("h empty");

    ClusterSnapshot gone = merge(Map.of(1, answer(1, 0, 10), 2, answer(2, 1, 25)));
    DashboardMessages.Delta removal = DashboardMessages.between(consumed, gone).orElseThrow();
    assertThat(removal.removedGroups()).containsExactly("g");
    assertThat(removal.groups()).isEmpty();
  }
}
