package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.kafka.KafkaListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * Kafka's classic consumer groups on the broker's Kafka listener, with unmodified kafka-clients
 * consumers and admin client, over the same group coordinator as the REST consumer instances:
 * members of a group share a topic's partitions and its committed offsets (REST members included),
 * another group reads every record, and an admin lists, describes, reads the offsets of and deletes
 * groups. Requests no client would send (a stale generation, an old JoinGroup) are in {@link
 * KafkaGroupsWireApiTest}.
 *
 * <p>Members heartbeat every 100 ms, so a rebalance takes a few heartbeats, not seconds; the
 * group's initial rebalance delay is 0 here ({@link ApiTestSupport}).
 */
class KafkaGroupsApiTest extends ApiTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(45);

  @Autowired KafkaListener kafka;

  private String bootstrap() {
    return "127.0.0.1:" + kafka.port();
  }

  /** A subscribed Kafka consumer and every record it has polled. */
  private final class Member implements AutoCloseable {
    final KafkaConsumer<String, String> consumer;
    final List<ConsumerRecord<String, String>> records = new ArrayList<>();

    Member(String group, String clientId, String topic) {
      this(group, clientId, null, topic);
    }

    /** A static member (KIP-345) if {@code instanceId} is not null. */
    Member(String group, String clientId, String instanceId, String topic) {
      Properties props = new Properties();
      if (instanceId != null) {
        props.put("group.instance.id", instanceId);
      }
      props.put("bootstrap.servers", bootstrap());
      props.put("group.id", group);
      props.put("client.id", clientId);
      props.put("group.protocol", "classic");
      props.put("enable.auto.commit", "false");
      props.put("auto.offset.reset", "earliest");
      props.put("session.timeout.ms", "10000");
      props.put("heartbeat.interval.ms", "100");
      props.put("max.poll.interval.ms", "20000");
      consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
      consumer.subscribe(List.of(topic));
    }

    void poll() {
      consumer.poll(Duration.ofMillis(50)).forEach(records::add);
    }

    Set<TopicPartition> assignment() {
      return consumer.assignment();
    }

    List<String> values() {
      return records.stream().map(ConsumerRecord::value).toList();
    }

    @Override
    public void close() {
      consumer.close();
    }
  }

  /** Polls every member in turn until {@code done} holds, for at most {@link #WAIT}. */
  private static void pollUntil(String what, BooleanSupplier done, Member... members) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("still waiting for " + what).isLessThan(deadline);
      for (Member m : members) {
        m.poll();
      }
    }
  }

  private static List<TopicPartition> partitions(String topic, int count) {
    List<TopicPartition> out = new ArrayList<>();
    for (int p = 0; p < count; p++) {
      out.add(new TopicPartition(topic, p));
    }
    return out;
  }

  /** True if the assignments are all non-empty, disjoint, and together {@code all}. */
  @SafeVarargs
  private static boolean split(List<TopicPartition> all, Set<TopicPartition>... assignments) {
    Set<TopicPartition> union = new HashSet<>();
    int total = 0;
    for (Set<TopicPartition> a : assignments) {
      if (a.isEmpty()) {
        return false;
      }
      union.addAll(a);
      total += a.size();
    }
    return total == all.size() && union.equals(Set.copyOf(all));
  }

  /** Produces {@code perPartition} records to each partition; values {@code prefix-p-i}. */
  private List<String> produce(String topic, int partitions, int perPartition, String prefix)
      throws Exception {
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap());
    props.put("acks", "all");
    props.put("enable.idempotence", "false");
    List<String> values = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
      for (int p = 0; p < partitions; p++) {
        for (int i = 0; i < perPartition; i++) {
          String value = prefix + "-" + p + "-" + i;
          producer.send(new ProducerRecord<>(topic, p, null, value)).get();
          values.add(value);
        }
      }
    }
    return values;
  }

  private static Map<TopicPartition, Long> offsets(Map<TopicPartition, OffsetAndMetadata> m) {
    return m.entrySet().stream()
        .filter(e -> e.getValue() != null)
        .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
  }

  @Test
  void twoMembersSplitTheTopicAndANewMemberResumesFromTheirCommittedOffsets() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 3);
    String group = "g-" + topic;
    List<TopicPartition> all = partitions(topic, 3);
    try (Member a = new Member(group, "a", topic);
        Member b = new Member(group, "b", topic)) {
      pollUntil(
          "a and b to split the 3 partitions",
          () -> split(all, a.assignment(), b.assignment()),
          a,
          b);
      List<String> first = produce(topic, 3, 4, "first");
      pollUntil("the 12 records", () -> a.records.size() + b.records.size() >= 12, a, b);

      assertThat(a.records).allSatisfy(r -> assertThat(a.assignment()).contains(partitionOf(r)));
      assertThat(b.records).allSatisfy(r -> assertThat(b.assignment()).contains(partitionOf(r)));
      List<String> both = new ArrayList<>(a.values());
      both.addAll(b.values());
      assertThat(both).containsExactlyInAnyOrderElementsOf(first);
      a.consumer.commitSync();
      b.consumer.commitSync();
    }

    List<String> second = produce(topic, 3, 2, "second");
    try (Member c = new Member(group, "c", topic)) {
      pollUntil("c to read what came after the commits", () -> c.records.size() >= 6, c);
      assertThat(c.values()).containsExactlyInAnyOrderElementsOf(second);
      assertThat(offsets(c.consumer.committed(Set.copyOf(all))))
          .isEqualTo(Map.of(all.get(0), 4L, all.get(1), 4L, all.get(2), 4L));
    }
  }

  @Test
  void aConsumerOfAnotherGroupReadsEveryRecordTheGroupSplits() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 3);
    List<TopicPartition> all = partitions(topic, 3);
    try (Member a = new Member("g-" + topic, "a", topic);
        Member b = new Member("g-" + topic, "b", topic);
        Member other = new Member("other-" + topic, "other", topic)) {
      pollUntil(
          "a and b to split the partitions and the other group to have them all",
          () -> split(all, a.assignment(), b.assignment()) && split(all, other.assignment()),
          a,
          b,
          other);
      List<String> values = produce(topic, 3, 3, "v");
      pollUntil(
          "every record in both groups",
          () -> a.records.size() + b.records.size() >= 9 && other.records.size() >= 9,
          a,
          b,
          other);

      assertThat(other.values()).containsExactlyInAnyOrderElementsOf(values);
      assertThat(a.values()).isNotEmpty().doesNotContainAnyElementsOf(b.values());
    }
  }

  @Test
  void aRestartedStaticLeaderTakesBackItsPartitionsWithoutARebalance() {
    String topic = newTopicName();
    createTopic(topic, 2);
    String group = "g-" + topic;
    List<TopicPartition> all = partitions(topic, 2);
    try (Member stays = new Member(group, "stays", "instance-stays", topic)) {
      Set<TopicPartition> before;
      int generation;
      try (Member restarts = new Member(group, "restarts", "instance-restarts", topic)) {
        // It joins first, so it leads the group: the case KIP-814 is about.
        pollUntil(
            "the first member to have every partition",
            () -> split(all, restarts.assignment()),
            restarts);
        pollUntil(
            "the static members to split the partitions",
            () -> split(all, stays.assignment(), restarts.assignment()),
            stays,
            restarts);
        before = Set.copyOf(restarts.assignment());
        generation = stays.consumer.groupMetadata().generationId();
      } // a static member does not leave the group when it closes

      try (Member restarted = new Member(group, "restarted", "instance-restarts", topic)) {
        pollUntil(
            "the restarted instance to have its partitions back",
            () -> restarted.assignment().equals(before),
            stays,
            restarted);
        assertThat(restarted.consumer.groupMetadata().generationId()).isEqualTo(generation);
        assertThat(stays.consumer.groupMetadata().generationId())
            .as("the other member saw no rebalance")
            .isEqualTo(generation);
        assertThat(stays.assignment()).hasSize(1).doesNotContainAnyElementsOf(before);
      }
    }
  }

  // ---- REST members in the same group

  private static String instance(String group, String name) {
    return "/consumers/" + group + "/instances/" + name;
  }

  private Set<TopicPartition> restAssignment(String group, String name) {
    Set<TopicPartition> out = new HashSet<>();
    for (JsonNode p : expectOk(get(instance(group, name) + "/assignments")).get("partitions")) {
      out.add(new TopicPartition(p.get("topic").stringValue(), p.get("partition").intValue()));
    }
    return out;
  }

  private Map<TopicPartition, Long> restCommitted(
      String group, String name, List<TopicPartition> partitions) {
    StringBuilder body = new StringBuilder("{\"partitions\":[");
    for (int i = 0; i < partitions.size(); i++) {
      TopicPartition tp = partitions.get(i);
      body.append(i == 0 ? "" : ",")
          .append("{\"topic\":\"")
          .append(tp.topic())
          .append("\",\"partition\":")
          .append(tp.partition())
          .append('}');
    }
    body.append("]}");
    JsonNode committed =
        expectOk(sendWithBody("GET", instance(group, name) + "/offsets", V2_JSON, body.toString()));
    Map<TopicPartition, Long> out = new HashMap<>();
    for (JsonNode o : committed.get("offsets")) {
      out.put(
          new TopicPartition(o.get("topic").stringValue(), o.get("partition").intValue()),
          o.get("offset").longValue());
    }
    return out;
  }

  @Test
  void aRestInstanceAndAKafkaConsumerShareOneGroupItsPartitionsAndItsCommittedOffsets()
      throws Exception {
    String topic = newTopicName();
    createTopic(topic, 2);
    produce(topic, 2, 6, "v");
    String group = "g-" + topic;
    List<TopicPartition> all = partitions(topic, 2);
    Response created =
        post(
            "/consumers/" + group,
            V2_JSON,
            "{\"name\":\"rest-1\",\"format\":\"binary\",\"auto.offset.reset\":\"earliest\","
                + "\"auto.commit.enable\":\"false\",\"session.timeout.ms\":\"10000\","
                + "\"heartbeat.interval.ms\":\"100\"}");
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    Response subscribed =
        post(
            instance(group, "rest-1") + "/subscription",
            V2_JSON,
            "{\"topics\":[\"" + topic + "\"]}");
    assertThat(subscribed.status()).as(subscribed.body()).isEqualTo(204);

    try (Member kafkaMember = new Member(group, "kafka-1", topic)) {
      pollUntil(
          "the REST instance and the Kafka consumer to split the partitions",
          () -> {
            Response polled =
                get(instance(group, "rest-1") + "/records?timeout=50", "Accept", EMBEDDED_BINARY);
            assertThat(polled.status()).as(polled.body()).isEqualTo(200);
            return split(all, restAssignment(group, "rest-1"), kafkaMember.assignment());
          },
          kafkaMember);
      TopicPartition kafkaOwn = kafkaMember.assignment().iterator().next();
      TopicPartition restOwn = restAssignment(group, "rest-1").iterator().next();

      kafkaMember.consumer.commitSync(Map.of(kafkaOwn, new OffsetAndMetadata(3)));
      // REST Proxy's commit names the last record processed: offset 4 commits 5, the next to read.
      Response committed =
          post(
              instance(group, "rest-1") + "/offsets",
              V2_JSON,
              "{\"offsets\":[{\"topic\":\""
                  + topic
                  + "\",\"partition\":"
                  + restOwn.partition()
                  + ",\"offset\":4}]}");
      assertThat(committed.status()).as(committed.body()).isEqualTo(200);

      Map<TopicPartition, Long> expected = Map.of(kafkaOwn, 3L, restOwn, 5L);
      assertThat(offsets(kafkaMember.consumer.committed(Set.copyOf(all)))).isEqualTo(expected);
      assertThat(restCommitted(group, "rest-1", all)).isEqualTo(expected);

      try (Admin admin = admin()) {
        ConsumerGroupDescription described =
            admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group);
        assertThat(described.groupState()).isEqualTo(GroupState.STABLE);
        assertThat(described.partitionAssignor()).isEqualTo("range");
        assertThat(described.members())
            .extracting(MemberDescription::clientId)
            .containsExactlyInAnyOrder("kafka-1", "rest-1");
        assertThat(
                described.members().stream()
                    .flatMap(m -> m.assignment().topicPartitions().stream())
                    .toList())
            .containsExactlyInAnyOrderElementsOf(all);
      }
    } finally {
      delete(instance(group, "rest-1"));
    }
  }

  // ---- the admin client

  private Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()));
  }

  @Test
  void anAdminListsDescribesReadsTheOffsetsOfAndDeletesAGroup() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 2);
    String group = "g-" + topic;
    List<TopicPartition> all = partitions(topic, 2);
    try (Admin admin = admin()) {
      Member member = new Member(group, "only", topic);
      try {
        pollUntil(
            "the member to have both partitions", () -> split(all, member.assignment()), member);
        produce(topic, 2, 2, "v");
        pollUntil("the 4 records", () -> member.records.size() >= 4, member);
        member.consumer.commitSync();

        assertThat(admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS))
            .filteredOn(l -> l.groupId().equals(group))
            .singleElement()
            .satisfies(l -> assertThat(l.groupState()).contains(GroupState.STABLE));
        ConsumerGroupDescription described =
            admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group);
        assertThat(described.groupState()).isEqualTo(GroupState.STABLE);
        assertThat(described.isSimpleConsumerGroup()).isFalse();
        assertThat(described.coordinator().port()).isEqualTo(kafka.port());
        assertThat(described.members())
            .singleElement()
            .satisfies(
                m -> {
                  assertThat(m.clientId()).isEqualTo("only");
                  assertThat(m.assignment().topicPartitions())
                      .containsExactlyInAnyOrderElementsOf(all);
                });
        assertThat(
                offsets(
                    admin
                        .listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata()
                        .get(30, TimeUnit.SECONDS)))
            .isEqualTo(Map.of(all.get(0), 2L, all.get(1), 2L));
        assertThatThrownBy(() -> admin.deleteConsumerGroups(List.of(group)).all().get())
            .isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(GroupNotEmptyException.class);
      } finally {
        member.close();
      }

      assertThat(admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS))
          .filteredOn(l -> l.groupId().equals(group))
          .extracting(ConsumerGroupListing::groupState)
          .containsExactly(Optional.of(GroupState.EMPTY));
      admin.deleteConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS);

      assertThat(admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS))
          .extracting(ConsumerGroupListing::groupId)
          .doesNotContain(group);
      assertThat(
              admin
                  .listConsumerGroupOffsets(group)
                  .partitionsToOffsetAndMetadata()
                  .get(30, TimeUnit.SECONDS))
          .isEmpty();
      assertThatThrownBy(
              () -> admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(GroupIdNotFoundException.class);
      assertThatThrownBy(
              () -> admin.deleteConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(GroupIdNotFoundException.class);
    }
  }

  private static TopicPartition partitionOf(ConsumerRecord<?, ?> record) {
    return new TopicPartition(record.topic(), record.partition());
  }
}
