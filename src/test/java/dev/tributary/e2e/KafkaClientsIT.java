package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * Unmodified Kafka clients against three broker processes' Kafka listeners: kafka-clients'
 * idempotent producer across a SIGKILL of its partition's leader, Kafka's VerifiableProducer and
 * VerifiableConsumer, kcat (librdkafka) with each compression codec, a consumer group of
 * KafkaConsumers across a broker kill, the Admin client, and a REST consumer instance sharing a
 * group with a KafkaConsumer.
 *
 * <p>The group tests (VerifiableConsumer, the consumer group, the shared group) need the Kafka
 * group APIs (FindCoordinator, JoinGroup, SyncGroup, Heartbeat, OffsetCommit, OffsetFetch, ...),
 * and the Admin test the admin APIs (CreateTopics, IncrementalAlterConfigs, CreatePartitions,
 * DeleteTopics, DescribeConfigs, DescribeCluster). kcat's lz4 case needs FindCoordinator v0.
 *
 * <p>One cluster for the class (its logs under {@code e2e-logs/KafkaClientsIT/}, the tools' output
 * beside them); each test has its own topics and starts with every broker running.
 */
class KafkaClientsIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();
  static final Duration FAILOVER = Duration.ofSeconds(30);
  static final String BINARY = "application/vnd.kafka.binary.v2+json";

  @TempDir static Path data;
  static TestCluster cluster;
  static ClusterClient client;
  static KafkaClients kafka;

  @BeforeAll
  static void startCluster() {
    // Without Spring nobody configures logback here, and its default is DEBUG for every client.
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("org.apache.kafka"))
        .setLevel(Level.WARN);
    cluster =
        new TestCluster(
            data, e2e.logDir(), 3, List.of("--tributary.group.initial-rebalance-delay-ms=0"));
    client = new ClusterClient(cluster);
    kafka = new KafkaClients(cluster);
    cluster.startAll();
  }

  @AfterAll
  static void stopCluster() throws InterruptedException {
    if (cluster != null) {
      cluster.close();
    }
  }

  @BeforeEach
  void everyBrokerRuns() {
    cluster.healAll();
  }

  // ------------------------------------------------------------------------------------ tests

  @Test
  void anIdempotentProducerLosesAndRepeatsNothingWhenItsLeaderIsKilled() throws Exception {
    String topic = "idempotent";
    int partitions = 3;
    createTopic(topic, partitions);
    int leader = client.partition(topic, 0).leader();

    NumberedStream stream = new NumberedStream(kafka.configs(), topic, partitions);
    try {
      stream.awaitAcknowledged(2_000);
      cluster.get(leader).kill();
      long killedAt = stream.acknowledgedCount();
      await("a new leader of " + topic + "-0")
          .atMost(FAILOVER)
          .until(() -> client.partition(topic, 0).leader(), id -> id >= 0 && id != leader);
      stream.awaitAcknowledged(killedAt + 2_000); // every partition goes on: they are interleaved
      cluster.restart(leader);
      stream.awaitAcknowledged(stream.acknowledgedCount() + 2_000);
    } finally {
      stream.close();
    }

    assertThat(stream.failed()).as("sends that failed").isEmpty();
    Map<Integer, List<ConsumerRecord<String, String>>> read =
        kafka.readFromBeginning(topic, partitions);
    Map<Long, Integer> timesRead = new HashMap<>();
    read.forEach(
        (partition, records) -> {
          List<Long> seqs = records.stream().map(r -> Long.parseLong(r.value())).toList();
          assertThat(seqs)
              .as("partition %d in sequence order, each number on its own partition", partition)
              .isSorted()
              .allMatch(seq -> seq % partitions == partition);
          seqs.forEach(seq -> timesRead.merge(seq, 1, Integer::sum));
        });
    Set<Long> lost = new TreeSet<>(stream.acknowledged());
    lost.removeAll(timesRead.keySet());
    assertThat(lost).as("acknowledged but not read back").isEmpty();
    assertThat(timesRead.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey))
        .as("read more than once")
        .isEmpty();
    assertThat(timesRead.keySet().stream().filter(seq -> seq >= stream.sent()))
        .as("read but never sent")
        .isEmpty();
    System.out.printf(
        "idempotent producer across a SIGKILL of broker %d (leader of %s-0): %d sent, %d"
            + " acknowledged, all read back once; longest gap between acknowledgements: %d ms on"
            + " %s-0, %d ms on the whole stream%n",
        leader,
        topic,
        stream.sent(),
        stream.acknowledgedCount(),
        stream.longestGapMs(0),
        topic,
        stream.longestGapMs());
  }

  @Test
  void verifiableProducerHasEveryRecordAcknowledgedOnce() throws Exception {
    String topic = "verifiable-producer";
    createTopic(topic, 3);
    int count = 3_000;
    verifiableProducer("verifiable-producer", topic, count);
    long stored = 0;
    for (ClusterClient.PartitionState p : client.partitions(topic)) {
      stored +=
          client
              .getJson(
                  client.anyLive(),
                  "/topics/" + topic + "/partitions/" + p.partition() + "/offsets")
              .path("end_offset")
              .asLong();
    }
    assertThat(stored)
        .as("records stored (sum of the partitions' high watermarks)")
        .isEqualTo(count);
  }

  /** Needs the Kafka group APIs. */
  @Test
  void verifiableConsumerInAClassicGroupReadsEveryRecord() throws Exception {
    String topic = "verifiable-consumer";
    createTopic(topic, 3);
    int count = 2_000;
    verifiableProducer("verifiable-producer-for-consumer", topic, count);
    try (ToolProcess consumer =
        ToolProcess.start(
            "verifiable-consumer",
            ToolProcess.kafkaTool(
                "org.apache.kafka.tools.VerifiableConsumer",
                e2e.logDir(),
                List.of(
                    "--bootstrap-server",
                    kafka.bootstrap(),
                    "--topic",
                    topic,
                    "--group-id",
                    "verifiable",
                    "--group-protocol",
                    "classic",
                    "--session-timeout",
                    "6000",
                    "--reset-policy",
                    "earliest",
                    "--max-messages",
                    Integer.toString(count),
                    "--verbose")),
            new byte[0],
            e2e.logDir())) {
      assertThat(consumer.awaitExit(Duration.ofSeconds(60))).as(consumer.describe()).isZero();
      Set<String> values =
          consumer.events("record_data").stream()
              .map(e -> e.path("value").asString())
              .collect(Collectors.toSet());
      assertThat(values)
          .as("values read, " + consumer.describe())
          .isEqualTo(
              IntStream.range(0, count).mapToObj(Integer::toString).collect(Collectors.toSet()));
      assertThat(
              consumer.events("records_consumed").stream()
                  .mapToInt(e -> e.path("count").asInt())
                  .sum())
          .isEqualTo(count);
      List<JsonNode> commits = consumer.events("offsets_committed");
      assertThat(commits).isNotEmpty().allMatch(c -> c.path("success").asBoolean(), "succeeded");
      Map<Integer, Long> lastCommitted = new TreeMap<>();
      commits.forEach(
          c ->
              c.path("offsets")
                  .forEach(
                      o ->
                          lastCommitted.put(
                              o.path("partition").asInt(), o.path("offset").asLong())));
      // Its last commit of each partition it read is that partition's end (VerifiableProducer's
      // keyless records stick to a partition per batch: one may have none, and no commit).
      Map<Integer, Long> ends = new TreeMap<>(kafka.endOffsets(topic, 3));
      ends.values().removeIf(end -> end == 0);
      assertThat(lastCommitted).as("last offsets committed").isEqualTo(ends);
    }
  }

  /**
   * lz4 needs the group APIs: librdkafka 2.0 (Debian's kcat) sends lz4 only to a broker that has
   * FindCoordinator v0 (its feature table ties LZ4 to it), and otherwise sends the records
   * uncompressed without a word.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"gzip", "snappy", "zstd", "lz4"})
  void kcatRecordsAreStoredInTheirCodecAndReadBackByKcatAndRest(String codec) throws Exception {
    boolean kcat =
        Stream.of(System.getenv("PATH").split(":"))
            .anyMatch(dir -> Files.isExecutable(Path.of(dir, "kcat")));
    if (!kcat) {
      System.out.println("kcat tests skipped: kcat is not on PATH (apt-get install kcat)");
    }
    Assumptions.assumeTrue(kcat, "kcat is not on PATH (apt-get install kcat)");
    String topic = "kcat-" + codec;
    createTopic(topic, 1);
    // Long and repetitive, so that even a batch of one record compresses (librdkafka sends a batch
    // uncompressed when compression would make it larger).
    List<String> values =
        IntStream.range(0, 500)
            .mapToObj(i -> codec + " record " + i + " " + "x".repeat(200))
            .toList();
    try (ToolProcess producer =
        ToolProcess.start(
            "kcat-produce-" + codec,
            List.of("kcat", "-P", "-b", kafka.bootstrap(), "-t", topic, "-p", "0", "-z", codec),
            (String.join("\n", values) + "\n").getBytes(StandardCharsets.UTF_8),
            e2e.logDir())) {
      assertThat(producer.awaitExit(Duration.ofSeconds(30))).as(producer.describe()).isZero();
    }
    // Every batch in the leader's files is stored as kcat compressed it, so the reads below
    // decompress.
    BrokerProcess leader = cluster.get(client.partition(topic, 0).leader());
    assertThat(storedCompression(leader.dataDir(), topic + "-0"))
        .as("compression of the batches %s stored", codec)
        .containsOnly(CompressionType.forName(codec));

    try (ToolProcess consumer =
        ToolProcess.start(
            "kcat-consume-" + codec,
            List.of(
                "kcat",
                "-C",
                "-b",
                kafka.bootstrap(),
                "-t",
                topic,
                "-p",
                "0",
                "-o",
                "beginning",
                "-e",
                "-f",
                "%s\\n"),
            new byte[0],
            e2e.logDir())) {
      assertThat(consumer.awaitExit(Duration.ofSeconds(30))).as(consumer.describe()).isZero();
      assertThat(consumer.lines()).as("kcat read back (" + codec + ")").isEqualTo(values);
    }
    assertThat(restValues(topic, 0, values.size()))
        .as("read over REST (" + codec + ")")
        .isEqualTo(values);
  }

  /** Needs the Kafka group APIs. */
  @Test
  void aGroupOfThreeConsumersReadsEveryRecordAcrossABrokerKillAndKeepsItsCommits()
      throws Exception {
    String topic = "group-orders";
    String group = "orders-readers";
    int partitions = 6;
    createTopic(topic, partitions);
    Set<String> produced = new HashSet<>(kafka.produce(topic, partitions, "before-", 600));
    Map<String, Integer> consumed = new ConcurrentHashMap<>();
    List<KafkaConsumerThread> members = new ArrayList<>();
    try (Admin admin = Admin.create(kafka.configs())) {
      for (int i = 1; i <= 3; i++) {
        members.add(
            new KafkaConsumerThread("m" + i, kafka.groupConfigs(group, "m" + i), topic, consumed));
      }
      awaitSharing(members, partitions, "three members");
      awaitConsumed(members, consumed, produced);
      await("every partition's offset committed")
          .atMost(FAILOVER)
          .until(
              () -> KafkaClients.committed(admin, group),
              c -> c.equals(kafka.endOffsets(topic, partitions)));
      Map<Integer, Long> committedBeforeKill = KafkaClients.committed(admin, group);

      int coordinator =
          admin.describeConsumerGroups(List.of(group)).all().get().get(group).coordinator().id();
      cluster.get(coordinator).kill();
      // The group's offsets are read back by the new coordinator: nothing committed is lost.
      await("the commits of " + group + " served after its coordinator " + coordinator + " died")
          .atMost(FAILOVER)
          .ignoreExceptions()
          .until(() -> KafkaClients.committed(admin, group), c -> c.equals(committedBeforeKill));

      produced.addAll(kafka.produce(topic, partitions, "after-", 600));
      members.remove(2).close(); // m3 leaves: its partitions go to m1 and m2
      awaitSharing(members, partitions, "the two members left");
      awaitConsumed(members, consumed, produced);
      await("every partition's offset committed after the kill")
          .atMost(FAILOVER)
          .until(
              () -> KafkaClients.committed(admin, group),
              c -> c.equals(kafka.endOffsets(topic, partitions)));
      System.out.printf(
          "group %s: %d records, all consumed (%d twice, redelivered after a rebalance); coordinator %d"
              + " SIGKILLed, commits intact%n",
          group,
          produced.size(),
          consumed.values().stream().filter(n -> n > 1).count(),
          coordinator);
    } finally {
      for (KafkaConsumerThread member : members) {
        member.close();
      }
    }
  }

  /** Needs the Kafka admin APIs. */
  @Test
  void adminCreatesDescribesAltersGrowsAndDeletesATopicThatRestSees() throws Exception {
    String topic = "administered";
    String v3Topic = "/v3/clusters/" + TestCluster.CLUSTER_ID + "/topics/" + topic;
    try (Admin admin = Admin.create(kafka.configs())) {
      assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
          .extracting(node -> node.port())
          .containsExactlyInAnyOrderElementsOf(
              cluster.all().stream().map(BrokerProcess::kafkaPort).toList());

      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, 3, (short) 3).configs(Map.of("min.insync.replicas", "2"))))
          .all()
          .get(30, TimeUnit.SECONDS);
      TopicDescription described =
          admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
      assertThat(described.partitions())
          .hasSize(3)
          .allSatisfy(p -> assertThat(p.replicas()).hasSize(3));
      assertThat(client.getJson(client.anyLive(), v3Topic).path("partitions_count").asInt())
          .isEqualTo(3);
      assertThat(
              client
                  .getJson(client.anyLive(), v3Topic + "/configs/min.insync.replicas")
                  .path("value")
                  .asString())
          .isEqualTo("2");

      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      admin
          .incrementalAlterConfigs(
              Map.of(
                  resource,
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET),
                      new AlterConfigOp(
                          new ConfigEntry("min.insync.replicas", ""),
                          AlterConfigOp.OpType.DELETE))))
          .all()
          .get(30, TimeUnit.SECONDS);
      // The Admin client sends DescribeConfigs to whichever broker it likes; as in Kafka, only the
      // broker that handled the alter is sure to have applied it when the alter returns, so a
      // describe answered by another broker may show the old value for a few milliseconds.
      Map<String, ConfigEntry> configs =
          await("retention.ms described through the Admin client")
              .atMost(FAILOVER)
              .until(
                  () ->
                      admin
                          .describeConfigs(List.of(resource))
                          .all()
                          .get(30, TimeUnit.SECONDS)
                          .get(resource)
                          .entries()
                          .stream()
                          .collect(Collectors.toMap(ConfigEntry::name, e -> e)),
                  c -> "3600000".equals(c.get("retention.ms").value()));
      assertThat(configs.get("retention.ms").source())
          .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
      assertThat(configs.get("min.insync.replicas").source())
          .isNotEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
      for (BrokerProcess broker : cluster.all()) {
        await("retention.ms of " + topic + " on broker " + broker.brokerId())
            .atMost(FAILOVER)
            .until(
                () -> client.getJson(broker, v3Topic + "/configs/retention.ms"),
                c ->
                    c.path("value").asString().equals("3600000")
                        && c.path("source").asString().equals("DYNAMIC_TOPIC_CONFIG"));
      }

      admin
          .createPartitions(Map.of(topic, NewPartitions.increaseTo(5)))
          .all()
          .get(30, TimeUnit.SECONDS);
      await("five partitions over REST")
          .atMost(FAILOVER)
          .until(
              () -> client.partitions(topic),
              ps -> ps.size() == 5 && ps.stream().allMatch(p -> p.replicas().size() == 3));
      assertThat(admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions())
          .hasSize(5);

      admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
      await(topic + " gone over REST")
          .atMost(FAILOVER)
          .until(() -> client.send("GET", client.anyLive(), v3Topic, null).statusCode() == 404);
      assertThat(admin.listTopics().names().get()).doesNotContain(topic);
    }
  }

  /** Needs the Kafka group APIs. */
  @Test
  void aRestConsumerInstanceAndAKafkaConsumerShareOneGroupsPartitions() throws Exception {
    String topic = "shared-group";
    String group = "rest-and-kafka";
    int partitions = 4;
    createTopic(topic, partitions);
    Map<String, Integer> consumed = new ConcurrentHashMap<>();
    try (RestConsumerThread rest =
            new RestConsumerThread(client, cluster.get(1), group, "rest-1", topic, consumed);
        KafkaConsumerThread member =
            new KafkaConsumerThread(
                "kafka-1", kafka.groupConfigs(group, "kafka-1"), topic, consumed)) {
      await("the REST instance and the Kafka consumer share " + topic)
          .atMost(FAILOVER)
          .until(
              () -> {
                rest.assertHealthy();
                member.assertHealthy();
                Set<Integer> a = rest.assignment();
                Set<Integer> b = member.assignment();
                return !a.isEmpty()
                    && !b.isEmpty()
                    && disjoint(a, b)
                    && union(a, b).size() == partitions;
              });
      Set<Integer> restPartitions = rest.assignment();
      Set<Integer> kafkaPartitions = member.assignment();
      Set<String> produced = new HashSet<>(kafka.produce(topic, partitions, "shared-", 400));
      await("every record read by one of the two")
          .atMost(FAILOVER)
          .until(
              () -> {
                rest.assertHealthy();
                member.assertHealthy();
                return consumed.keySet().containsAll(produced);
              });
      assertThat(rest.partitionsRead())
          .as("partitions the REST instance read")
          .isEqualTo(restPartitions);
      assertThat(member.partitionsRead())
          .as("partitions the Kafka consumer read")
          .isEqualTo(kafkaPartitions);
      assertThat(consumed).as("records read twice").allSatisfy((v, n) -> assertThat(n).isOne());
    }
  }

  // ---------------------------------------------------------------------------------- helpers

  /**
   * Creates a topic with replication factor 3 and min.insync.replicas=2; waits until every replica
   * is in sync.
   */
  private static void createTopic(String topic, int partitions) {
    client.createTopic(topic, partitions, 3, Map.of("min.insync.replicas", "2"));
    await(topic + " led, every replica in sync")
        .atMost(FAILOVER)
        .until(
            () -> client.partitions(topic),
            ps ->
                ps.size() == partitions
                    && ps.stream().allMatch(p -> p.leader() >= 0 && p.isr().size() == 3));
  }

  /**
   * Runs VerifiableProducer to send {@code count} records and checks its events: each acknowledged
   * once, no error.
   */
  private static void verifiableProducer(String name, String topic, int count) throws Exception {
    try (ToolProcess producer =
        ToolProcess.start(
            name,
            ToolProcess.kafkaTool(
                "org.apache.kafka.tools.VerifiableProducer",
                e2e.logDir(),
                List.of(
                    "--bootstrap-server",
                    kafka.bootstrap(),
                    "--topic",
                    topic,
                    "--acks",
                    "-1",
                    "--max-messages",
                    Integer.toString(count))),
            new byte[0],
            e2e.logDir())) {
      assertThat(producer.awaitExit(Duration.ofSeconds(60))).as(producer.describe()).isZero();
      assertThat(producer.events("producer_send_error")).as(producer.describe()).isEmpty();
      List<JsonNode> acknowledged = producer.events("producer_send_success");
      assertThat(acknowledged).as(producer.describe()).hasSize(count);
      assertThat(
              acknowledged.stream()
                  .map(e -> e.path("value").asString())
                  .collect(Collectors.toSet()))
          .as("values acknowledged")
          .hasSize(count);
      assertThat(
              acknowledged.stream()
                  .map(e -> e.path("partition").asInt() + "@" + e.path("offset").asLong())
                  .distinct())
          .as("offsets acknowledged, each given once")
          .hasSize(count);
      assertThat(producer.events("tool_data"))
          .singleElement()
          .satisfies(d -> assertThat(d.path("acked").asLong()).isEqualTo(count));
    }
  }

  /**
   * The compression codec of every batch of {@code <dataDir>/logs/<topicPartition>}, read with
   * kafka-clients' own reader.
   */
  private static Set<CompressionType> storedCompression(Path dataDir, String topicPartition)
      throws Exception {
    Set<CompressionType> codecs = new HashSet<>();
    try (Stream<Path> files = Files.list(dataDir.resolve("logs").resolve(topicPartition))) {
      for (Path segment : files.filter(f -> f.toString().endsWith(".log")).toList()) {
        try (FileRecords records = FileRecords.open(segment.toFile(), false)) {
          for (FileChannelRecordBatch batch : records.batches()) {
            batch.ensureValid();
            codecs.add(batch.compressionType());
          }
        }
      }
    }
    return codecs;
  }

  /**
   * The values of a partition's first {@code count} records, read over the v2 records endpoint in
   * the binary format.
   */
  private static List<String> restValues(String topic, int partition, int count) throws Exception {
    List<String> values = new ArrayList<>();
    while (values.size() < count) {
      HttpRequest request =
          HttpRequest.newBuilder(
                  URI.create(
                      client
                          .anyLive()
                          .url(
                              "/topics/"
                                  + topic
                                  + "/partitions/"
                                  + partition
                                  + "/records?offset="
                                  + values.size())))
              .header("Accept", BINARY)
              .timeout(ClusterClient.REQUEST_TIMEOUT)
              .build();
      HttpResponse<String> response =
          client.http.send(request, HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      JsonNode records = client.json.readTree(response.body());
      assertThat(records).as("records at offset " + values.size()).isNotEmpty();
      for (JsonNode record : records) {
        assertThat(record.path("offset").asLong()).isEqualTo(values.size());
        values.add(
            new String(
                Base64.getDecoder().decode(record.path("value").asString()),
                StandardCharsets.UTF_8));
      }
    }
    return values;
  }

  /** Waits until every member holds some partitions and together they hold each exactly once. */
  private static void awaitSharing(List<KafkaConsumerThread> members, int partitions, String what) {
    await(what + " share the partitions")
        .atMost(FAILOVER)
        .until(
            () -> {
              List<Integer> held = new ArrayList<>();
              for (KafkaConsumerThread member : members) {
                member.assertHealthy();
                if (member.assignment().isEmpty()) {
                  return false;
                }
                held.addAll(member.assignment());
              }
              return held.size() == partitions && new HashSet<>(held).size() == partitions;
            });
  }

  private static void awaitConsumed(
      List<KafkaConsumerThread> members, Map<String, Integer> consumed, Set<String> produced) {
    await("every record consumed")
        .atMost(FAILOVER)
        .until(
            () -> {
              members.forEach(KafkaConsumerThread::assertHealthy);
              return consumed.keySet().containsAll(produced);
            });
  }

  private static boolean disjoint(Set<Integer> a, Set<Integer> b) {
    return a.stream().noneMatch(b::contains);
  }

  private static Set<Integer> union(Set<Integer> a, Set<Integer> b) {
    Set<Integer> all = new HashSet<>(a);
    all.addAll(b);
    return all;
  }
}
