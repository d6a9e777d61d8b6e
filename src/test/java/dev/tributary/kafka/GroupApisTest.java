package dev.tributary.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.CoordinatorHarness;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicImage;
import dev.tributary.security.AclBinding;
import dev.tributary.security.AclOperation;
import dev.tributary.security.Authorizer;
import dev.tributary.security.PatternType;
import dev.tributary.security.ResourceType;
import dev.tributary.security.SecurityImage;
import dev.tributary.server.AccessControl;
import dev.tributary.server.RequestContext;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/**
 * The group handlers' mapping between Kafka's messages and the coordinator, over a real {@link
 * GroupCoordinator} on a manual clock ({@link CoordinatorHarness}) and a real {@link Authorizer}:
 * every request and answer goes through bytes at the version under test, as on the wire, so a field
 * set where its version has none fails here too.
 */
class GroupApisTest {
  private static final String ALICE = "User:alice";
  private static final String GROUP = CoordinatorHarness.GROUP;
  private static final dev.tributary.common.Uuid ORDERS_ID = new dev.tributary.common.Uuid(7, 11);

  private final CoordinatorHarness harness = CoordinatorHarness.direct(0).lead();
  private GroupCoordinator coordinator = harness.coordinator;
  private SecurityImage security = SecurityImage.EMPTY;
  private final MetadataImage image = image();
  private final GroupBackend backend =
      new GroupBackend(
          () -> coordinator,
          group -> group.equals(GROUP) ? 1 : -1,
          () -> image,
          new AccessControl(new Authorizer(() -> security, Map.of(), Set.of()), true, () -> {}),
          harness.clock);

  /**
   * Topics {@code orders} (2 partitions) and {@code secret} (1); broker 1 with a Kafka listener.
   */
  private static MetadataImage image() {
    TreeMap<String, TopicImage> topics = new TreeMap<>();
    topics.put("orders", topic(ORDERS_ID, "orders", 2));
    topics.put("secret", topic(new dev.tributary.common.Uuid(8, 12), "secret", 1));
    TreeMap<Integer, BrokerImage> brokers = new TreeMap<>();
    brokers.put(
        1,
        new BrokerImage(
            1,
            new dev.tributary.common.Uuid(1, 1),
            List.of(
                AdvertisedListener.http("b1", 8080),
                new AdvertisedListener(
                    MetadataApi.KAFKA_LISTENER,
                    "b1",
                    9092,
                    AdvertisedListener.SecurityProtocol.PLAINTEXT)),
            10,
            false));
    return new MetadataImage(5, topics, Map.of(), brokers);
  }

  private static TopicImage topic(dev.tributary.common.Uuid id, String name, int partitions) {
    TreeMap<Integer, PartitionImage> out = new TreeMap<>();
    for (int p = 0; p < partitions; p++) {
      out.put(p, new PartitionImage(p, List.of(1), List.of(1), 1, 0, 0));
    }
    return new TopicImage(id, name, out, Map.of());
  }

  private void grant(AclOperation operation, ResourceType type, String name) {
    security = security.withAcl(new AclBinding(ALICE, operation, type, PatternType.LITERAL, name));
  }

  private void grantReadOnGroupAndOrders() {
    grant(AclOperation.READ, ResourceType.GROUP, GROUP);
    grant(AclOperation.READ, ResourceType.TOPIC, "orders");
  }

  /**
   * Sends {@code request} at {@code version} to {@code handler} as alice and returns the answer,
   * both passed through their wire form at that version.
   */
  @SuppressWarnings("unchecked")
  private <R extends AbstractResponse> R call(
      ApiHandler handler, AbstractRequest.Builder<?> builder, int version) {
    short v = (short) version;
    AbstractRequest sent = builder.build(v);
    assertThat(v).isBetween(handler.minVersion(), handler.maxVersion());
    AbstractRequest request =
        AbstractRequest.parseRequest(sent.apiKey(), v, sent.serialize()).request;
    KafkaRequestContext context =
        new KafkaRequestContext(
            new RequestHeader(sent.apiKey(), v, "client-1", 1),
            "connection-1",
            MetadataApi.KAFKA_LISTENER,
            new RequestContext(ALICE, "10.0.0.1", false));
    CompletableFuture<AbstractResponse> answer = handler.handle(context, request);
    AbstractResponse response = harness.now(answer);
    return (R)
        AbstractResponse.parseResponse(
            sent.apiKey(), MessageUtil.toByteBufferAccessor(response.data(), v), v);
  }

  private static JoinGroupRequest.Builder join(String memberId) {
    JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
        new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
    protocols.add(
        new JoinGroupRequestData.JoinGroupRequestProtocol()
            .setName("range")
            .setMetadata(CoordinatorHarness.subscription("orders")));
    return new JoinGroupRequest.Builder(
        new JoinGroupRequestData()
            .setGroupId(GROUP)
            .setMemberId(memberId)
            .setSessionTimeoutMs(CoordinatorHarness.SESSION_MS)
            .setRebalanceTimeoutMs(CoordinatorHarness.REBALANCE_MS)
            .setProtocolType("consumer")
            .setProtocols(protocols));
  }

  private static OffsetCommitRequestTopic commitTopic(String name, Uuid id, long offset) {
    return new OffsetCommitRequestTopic()
        .setName(name)
        .setTopicId(id)
        .setPartitions(
            List.of(
                new OffsetCommitRequestPartition()
                    .setPartitionIndex(0)
                    .setCommittedOffset(offset)
                    .setCommittedMetadata("m")));
  }

  /** A commit from outside the group's membership (generation -1), as a manual assignment's. */
  private static OffsetCommitRequestData commit(OffsetCommitRequestTopic... topics) {
    return new OffsetCommitRequestData()
        .setGroupId(GROUP)
        .setGenerationIdOrMemberEpoch(-1)
        .setTopics(List.of(topics));
  }

  private static OffsetFetchRequestGroup fetchGroup(String group, String... topics) {
    OffsetFetchRequestGroup out = new OffsetFetchRequestGroup().setGroupId(group);
    for (String t : topics) {
      out.topics().add(new OffsetFetchRequestTopics().setName(t).setPartitionIndexes(List.of(0)));
    }
    return out;
  }

  private static OffsetFetchRequest.Builder fetch(OffsetFetchRequestGroup... groups) {
    return OffsetFetchRequest.Builder.forTopicIdsOrNames(
        new OffsetFetchRequestData().setGroups(List.of(groups)), false);
  }

  private static List<Object> partitionResults(OffsetCommitResponse response) {
    return response.data().topics().stream()
        .flatMap(
            t ->
                t.partitions().stream()
                    .map(
                        p ->
                            (Object)
                                tuple(
                                    t.name(),
                                    p.partitionIndex(),
                                    Errors.forCode(
                                        ((OffsetCommitResponsePartition) p).errorCode()))))
        .toList();
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  void aJoinBelowV4IsOneRoundAndFromV4TheMemberFirstGetsItsId() {
    grant(AclOperation.READ, ResourceType.GROUP, GROUP);
    JoinGroupApi api = new JoinGroupApi(backend);

    JoinGroupResponse v4 = call(api, join(""), 4);
    assertThat(v4.error()).isEqualTo(Errors.MEMBER_ID_REQUIRED);
    assertThat(v4.data().memberId()).isNotEmpty();
    assertThat(v4.data().generationId()).isEqualTo(-1);

    JoinGroupResponse v3 = call(api, join(""), 3);
    assertThat(v3.error()).as("no MEMBER_ID_REQUIRED round before v4").isEqualTo(Errors.NONE);
    assertThat(v3.data().memberId()).isNotEmpty().isNotEqualTo(v4.data().memberId());
    assertThat(v3.data().leader()).isEqualTo(v3.data().memberId());
    assertThat(v3.data().protocolName()).isEqualTo("range");
    assertThat(v3.data().members()).singleElement();
  }

  @Test
  void aHeartbeatOfAnotherGenerationOrAnUnknownMemberGetsKafkasError() {
    grant(AclOperation.READ, ResourceType.GROUP, GROUP);
    JoinGroupResponse joined = call(new JoinGroupApi(backend), join(""), 3);
    String member = joined.data().memberId();
    int generation = joined.data().generationId();
    harness.sync(member, generation, Map.of(member, new byte[0]));
    HeartbeatApi api = new HeartbeatApi(backend);

    assertThat(heartbeat(api, member, generation)).isEqualTo(Errors.NONE);
    assertThat(heartbeat(api, member, generation + 1)).isEqualTo(Errors.ILLEGAL_GENERATION);
    assertThat(heartbeat(api, "someone-else", generation)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
  }

  private Errors heartbeat(HeartbeatApi api, String member, int generation) {
    HeartbeatResponse response =
        call(
            api,
            new HeartbeatRequest.Builder(
                new HeartbeatRequestData()
                    .setGroupId(GROUP)
                    .setMemberId(member)
                    .setGenerationId(generation)),
            4);
    return response.error();
  }

  @Test
  void aCommitRefusesOnlyTheTopicsItMayNotCommitAndAFetchOfAllShowsOnlyReadableOnes() {
    grantReadOnGroupAndOrders();
    // As Kafka: authorisation first, so only a topic alice may read can be told missing.
    grant(AclOperation.READ, ResourceType.TOPIC, "missing");
    OffsetCommitResponse committed =
        call(
            new OffsetCommitApi(backend),
            OffsetCommitRequest.Builder.forTopicNames(
                commit(
                    commitTopic("orders", Uuid.ZERO_UUID, 5),
                    commitTopic("secret", Uuid.ZERO_UUID, 6),
                    commitTopic("missing", Uuid.ZERO_UUID, 7))),
            9);

    assertThat(partitionResults(committed))
        .containsExactly(
            tuple("orders", 0, Errors.NONE),
            tuple("secret", 0, Errors.TOPIC_AUTHORIZATION_FAILED),
            tuple("missing", 0, Errors.UNKNOWN_TOPIC_OR_PARTITION));
    assertThat(harness.committed()).containsOnlyKeys(new TopicPartition("orders", 0));
    assertThat(harness.committed().values())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.offset()).isEqualTo(5);
              assertThat(o.metadata()).isEqualTo("m");
              assertThat(o.commitTimestampMs()).isEqualTo(harness.clock.milliseconds());
            });

    grant(AclOperation.READ, ResourceType.TOPIC, "secret");
    call(
        new OffsetCommitApi(backend),
        OffsetCommitRequest.Builder.forTopicNames(commit(commitTopic("secret", Uuid.ZERO_UUID, 6))),
        9);
    assertThat(harness.committed()).containsKey(new TopicPartition("secret", 0));
    security = SecurityImage.EMPTY;
    grantReadOnGroupAndOrders();
    OffsetFetchResponse all =
        call(
            new OffsetFetchApi(backend),
            fetch(new OffsetFetchRequestGroup().setGroupId(GROUP).setTopics(null)),
            9);
    OffsetFetchResponseGroup group = all.group(GROUP);
    assertThat(group.errorCode()).isZero();
    assertThat(group.topics())
        .as("secret's offset is there, but not for alice to see")
        .extracting(OffsetFetchResponseTopics::name)
        .containsExactly("orders");
    OffsetFetchResponse named =
        call(new OffsetFetchApi(backend), fetch(fetchGroup(GROUP, "orders", "secret")), 9);
    assertThat(named.group(GROUP).topics())
        .extracting(
            t -> t.name(),
            t -> t.partitions().get(0).committedOffset(),
            t -> Errors.forCode(t.partitions().get(0).errorCode()))
        .containsExactly(
            tuple("orders", 5L, Errors.NONE),
            tuple("secret", -1L, Errors.TOPIC_AUTHORIZATION_FAILED));
  }

  @Test
  void v10CommitsAndFetchesByTopicIdAndAnUnknownIdIsRefused() {
    grantReadOnGroupAndOrders();
    Uuid orders = TopicIds.toKafka(ORDERS_ID);
    Uuid unknown = new Uuid(99, 99);
    OffsetCommitResponse committed =
        call(
            new OffsetCommitApi(backend),
            OffsetCommitRequest.Builder.forTopicIdsOrNames(
                commit(commitTopic("", orders, 3), commitTopic("", unknown, 4))),
            10);
    assertThat(committed.data().topics())
        .extracting(t -> t.topicId(), t -> Errors.forCode(t.partitions().get(0).errorCode()))
        .containsExactly(tuple(orders, Errors.NONE), tuple(unknown, Errors.UNKNOWN_TOPIC_ID));

    OffsetFetchRequestGroup byId = new OffsetFetchRequestGroup().setGroupId(GROUP);
    byId.topics()
        .add(new OffsetFetchRequestTopics().setTopicId(orders).setPartitionIndexes(List.of(0, 1)));
    byId.topics()
        .add(new OffsetFetchRequestTopics().setTopicId(unknown).setPartitionIndexes(List.of(0)));
    OffsetFetchResponseGroup fetched =
        this.<OffsetFetchResponse>call(new OffsetFetchApi(backend), fetch(byId), 10).group(GROUP);
    assertThat(fetched.topics())
        .extracting(OffsetFetchResponseTopics::topicId)
        .containsExactly(orders, unknown);
    assertThat(fetched.topics().get(0).partitions())
        .extracting(
            OffsetFetchResponsePartitions::partitionIndex,
            OffsetFetchResponsePartitions::committedOffset)
        .containsExactly(tuple(0, 3L), tuple(1, -1L));
    assertThat(fetched.topics().get(1).partitions().get(0).errorCode())
        .isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
  }

  @Test
  void aGroupThePrincipalMayNotReadIsRefusedPerGroupAndBelowV2OnEveryPartition() {
    grant(AclOperation.READ, ResourceType.TOPIC, "orders");
    grant(AclOperation.READ, ResourceType.GROUP, "readable");
    OffsetFetchApi fetch = new OffsetFetchApi(backend);

    OffsetFetchResponse v1 = call(fetch, fetch(fetchGroup(GROUP, "orders")), 1);
    assertThat(v1.data().topics().get(0).partitions().get(0).errorCode())
        .isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED.code());
    assertThat(v1.group(GROUP).errorCode()).isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED.code());
    OffsetFetchResponse v8 =
        call(fetch, fetch(fetchGroup(GROUP, "orders"), fetchGroup("readable", "orders")), 8);
    assertThat(v8.group(GROUP).errorCode()).isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED.code());
    assertThat(v8.group("readable").errorCode()).isZero();

    OffsetCommitResponse committed =
        call(
            new OffsetCommitApi(backend),
            OffsetCommitRequest.Builder.forTopicNames(
                commit(commitTopic("orders", Uuid.ZERO_UUID, 1))),
            2);
    assertThat(partitionResults(committed))
        .containsExactly(tuple("orders", 0, Errors.GROUP_AUTHORIZATION_FAILED));
    assertThat(this.<JoinGroupResponse>call(new JoinGroupApi(backend), join(""), 9).error())
        .isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED);
    FindCoordinatorResponse found = findCoordinator(List.of(GROUP), 4);
    assertThat(found.data().coordinators().get(0).errorCode())
        .isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED.code());
    assertThat(harness.committed()).isEmpty();
  }

  @Test
  void withoutACoordinatorTheAnswerIsCoordinatorNotAvailableAndElsewhereNotCoordinator() {
    grantReadOnGroupAndOrders();
    coordinator = null;
    assertThat(this.<JoinGroupResponse>call(new JoinGroupApi(backend), join(""), 9).error())
        .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
    assertThat(
            this.<OffsetFetchResponse>call(
                    new OffsetFetchApi(backend), fetch(fetchGroup(GROUP, "orders")), 7)
                .group(GROUP)
                .errorCode())
        .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE.code());

    coordinator = harness.newCoordinator(); // leads no partition of __consumer_offsets
    assertThat(this.<JoinGroupResponse>call(new JoinGroupApi(backend), join(""), 9).error())
        .isEqualTo(Errors.NOT_COORDINATOR);
    OffsetCommitResponse committed =
        call(
            new OffsetCommitApi(backend),
            OffsetCommitRequest.Builder.forTopicNames(
                commit(commitTopic("orders", Uuid.ZERO_UUID, 1))),
            9);
    assertThat(partitionResults(committed))
        .containsExactly(tuple("orders", 0, Errors.NOT_COORDINATOR));
  }

  private FindCoordinatorResponse findCoordinator(List<String> keys, int version) {
    return call(
        new FindCoordinatorApi(backend),
        new FindCoordinatorRequest.Builder(
            new FindCoordinatorRequestData().setKeyType((byte) 0).setCoordinatorKeys(keys)),
        version);
  }

  @Test
  void findCoordinatorNamesTheLeadersKafkaListenerForOneKeyBeforeV4AndForEachFromV4() {
    grant(AclOperation.READ, ResourceType.GROUP, GROUP);
    grant(AclOperation.READ, ResourceType.GROUP, "homeless");

    FindCoordinatorResponse v3 = findCoordinator(List.of(GROUP), 3);
    assertThat(v3.error()).isEqualTo(Errors.NONE);
    assertThat(v3.data().nodeId()).isEqualTo(1);
    assertThat(v3.data().host()).isEqualTo("b1");
    assertThat(v3.data().port()).as("the Kafka listener, not HTTP").isEqualTo(9092);

    FindCoordinatorResponse v6 = findCoordinator(List.of(GROUP, "homeless"), 6);
    assertThat(v6.data().coordinators())
        .extracting(
            c -> c.key(), c -> c.nodeId(), c -> c.port(), c -> Errors.forCode(c.errorCode()))
        .containsExactly(
            tuple(GROUP, 1, 9092, Errors.NONE),
            tuple("homeless", -1, -1, Errors.COORDINATOR_NOT_AVAILABLE));
  }

  @Test
  void anUnknownGroupIsDescribedAsDeadBeforeV6AndNotFoundFromV6() {
    grant(AclOperation.READ, ResourceType.GROUP, "nobody-here");
    DescribeGroupsApi api = new DescribeGroupsApi(backend);
    DescribeGroupsRequest.Builder request =
        new DescribeGroupsRequest.Builder(
            new DescribeGroupsRequestData().setGroups(List.of("nobody-here", GROUP)));

    DescribeGroupsResponse v5 = call(api, request, 5);
    assertThat(v5.data().groups())
        .extracting(
            DescribedGroup::groupId, DescribedGroup::groupState, g -> Errors.forCode(g.errorCode()))
        .containsExactly(
            tuple("nobody-here", "Dead", Errors.NONE),
            tuple(GROUP, "", Errors.GROUP_AUTHORIZATION_FAILED));
    DescribeGroupsResponse v6 = call(api, request, 6);
    assertThat(v6.data().groups().get(0).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
  }

  @Test
  void aStableGroupIsDescribedWithItsMembersAndListedByStateAndType() {
    grant(AclOperation.READ, ResourceType.GROUP, GROUP);
    JoinGroupResponse joined = call(new JoinGroupApi(backend), join(""), 3);
    String member = joined.data().memberId();
    byte[] assignment = CoordinatorHarness.assignment(new TopicPartition("orders", 0));
    harness.sync(member, joined.data().generationId(), Map.of(member, assignment));

    DescribedGroup described =
        this.<DescribeGroupsResponse>call(
                new DescribeGroupsApi(backend),
                new DescribeGroupsRequest.Builder(
                    new DescribeGroupsRequestData()
                        .setGroups(List.of(GROUP))
                        .setIncludeAuthorizedOperations(true)),
                5)
            .data()
            .groups()
            .get(0);
    assertThat(described.groupState()).isEqualTo("Stable");
    assertThat(described.protocolType()).isEqualTo("consumer");
    assertThat(described.protocolData()).isEqualTo("range");
    assertThat(described.authorizedOperations())
        .as("READ and DESCRIBE, not DELETE without ADMIN")
        .isEqualTo(
            (1 << org.apache.kafka.common.acl.AclOperation.READ.code())
                | (1 << org.apache.kafka.common.acl.AclOperation.DESCRIBE.code()));
    assertThat(described.members())
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.memberId()).isEqualTo(member);
              assertThat(m.clientId()).isEqualTo("client-1");
              assertThat(m.clientHost()).isEqualTo("/10.0.0.1");
              assertThat(m.memberAssignment()).isEqualTo(assignment);
            });

    ListGroupsApi list = new ListGroupsApi(backend);
    assertThat(listed(list, List.of(), List.of(), 3))
        .extracting(ListedGroup::groupId, ListedGroup::protocolType)
        .containsExactly(tuple(GROUP, "consumer"));
    assertThat(listed(list, List.of("stable"), List.of("Classic"), 5))
        .extracting(ListedGroup::groupId, ListedGroup::groupState, ListedGroup::groupType)
        .containsExactly(tuple(GROUP, "Stable", "classic"));
    assertThat(listed(list, List.of("Empty"), List.of(), 4)).isEmpty();
    assertThat(listed(list, List.of(), List.of("consumer"), 5))
        .as("no KIP-848 groups here")
        .isEmpty();
    security = SecurityImage.EMPTY;
    assertThat(listed(list, List.of(), List.of(), 5))
        .as("only groups alice may describe")
        .isEmpty();
  }

  private List<ListedGroup> listed(
      ListGroupsApi api, List<String> states, List<String> types, int version) {
    ListGroupsResponse response =
        call(
            api,
            new ListGroupsRequest.Builder(
                new ListGroupsRequestData().setStatesFilter(states).setTypesFilter(types)),
            version);
    assertThat(response.data().errorCode()).isZero();
    return response.data().groups();
  }

  @Test
  void deletingTakesAdminAndAnEmptyGroupGoesWithItsOffsets() {
    grantReadOnGroupAndOrders();
    call(
        new OffsetCommitApi(backend),
        OffsetCommitRequest.Builder.forTopicNames(commit(commitTopic("orders", Uuid.ZERO_UUID, 4))),
        9);
    grant(AclOperation.READ, ResourceType.GROUP, "never-was");
    DeleteGroupsApi api = new DeleteGroupsApi(backend);
    DeleteGroupsRequest.Builder request =
        new DeleteGroupsRequest.Builder(
            new DeleteGroupsRequestData().setGroupsNames(List.of(GROUP, "never-was")));

    assertThat(deleted(call(api, request, 2)))
        .containsExactly(
            tuple(GROUP, Errors.GROUP_AUTHORIZATION_FAILED),
            tuple("never-was", Errors.GROUP_AUTHORIZATION_FAILED));
    grant(AclOperation.ADMIN, ResourceType.GROUP, GROUP);
    grant(AclOperation.ADMIN, ResourceType.GROUP, "never-was");
    assertThat(deleted(call(api, request, 2)))
        .containsExactly(tuple(GROUP, Errors.NONE), tuple("never-was", Errors.GROUP_ID_NOT_FOUND));
    assertThat(harness.committed()).isEmpty();
  }

  @Test
  void aRebalancingGroupIsDescribedWithoutProtocolSubscriptionsOrAssignments() {
    grant(AclOperation.READ, ResourceType.GROUP, GROUP);
    JoinGroupResponse joined = call(new JoinGroupApi(backend), join(""), 3);
    String member = joined.data().memberId();
    byte[] assignment = CoordinatorHarness.assignment(new TopicPartition("orders", 0));
    harness.sync(member, joined.data().generationId(), Map.of(member, assignment));
    CompletableFuture<?> secondJoin = harness.join("", "client-2");

    DescribedGroup described =
        this.<DescribeGroupsResponse>call(
                new DescribeGroupsApi(backend),
                new DescribeGroupsRequest.Builder(
                    new DescribeGroupsRequestData().setGroups(List.of(GROUP))),
                5)
            .data()
            .groups()
            .get(0);
    assertThat(secondJoin).isNotDone();
    assertThat(described.groupState()).isEqualTo("PreparingRebalance");
    assertThat(described.protocolData()).isEmpty();
    assertThat(described.members())
        .extracting(m -> m.memberMetadata().length, m -> m.memberAssignment().length)
        .containsOnly(tuple(0, 0));
  }

  @Test
  void aGroupWithMembersIsNotDeleted() {
    grant(AclOperation.ADMIN, ResourceType.GROUP, GROUP);
    call(new JoinGroupApi(backend), join(""), 3);
    DeleteGroupsResponse response =
        call(
            new DeleteGroupsApi(backend),
            new DeleteGroupsRequest.Builder(
                new DeleteGroupsRequestData().setGroupsNames(List.of(GROUP))),
            0);
    assertThat(deleted(response)).containsExactly(tuple(GROUP, Errors.NON_EMPTY_GROUP));
  }

  private static List<Object> deleted(DeleteGroupsResponse response) {
    return response.data().results().stream()
        .map(r -> (Object) tuple(r.groupId(), Errors.forCode(r.errorCode())))
        .toList();
  }

  @Test
  void theGroupApisAdvertiseTheVersionsTheyImplementAllKnownToTheClients() {
    Map<ApiKeys, String> advertised = new java.util.EnumMap<>(ApiKeys.class);
    for (ApiHandler api : backend.apis()) {
      advertised.put(api.apiKey(), api.minVersion() + "-" + api.maxVersion());
      assertThat(api.minVersion()).isGreaterThanOrEqualTo(api.apiKey().oldestVersion());
      assertThat(api.maxVersion()).isLessThanOrEqualTo(api.apiKey().latestVersion());
    }
    assertThat(advertised)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                ApiKeys.FIND_COORDINATOR, "0-6",
                ApiKeys.JOIN_GROUP, "0-9",
                ApiKeys.SYNC_GROUP, "0-5",
                ApiKeys.HEARTBEAT, "0-4",
                ApiKeys.LEAVE_GROUP, "0-5",
                ApiKeys.OFFSET_COMMIT, "2-10",
                ApiKeys.OFFSET_FETCH, "1-10",
                ApiKeys.LIST_GROUPS, "0-5",
                ApiKeys.DESCRIBE_GROUPS, "0-6",
                ApiKeys.DELETE_GROUPS, "0-3"));
  }
}
