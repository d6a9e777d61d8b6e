package dev.tributary.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.kafka.KafkaListener;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The Kafka admin APIs ask the ACLs REST's admin asks: ADMIN on the topic (or, to create, on the
 * cluster) to create, grow, delete or configure it, READ on it to describe its configs, READ and
 * ADMIN on the cluster for the broker's configs, elections and partition reassignments; a refusal
 * is Kafka's TOPIC_AUTHORIZATION_FAILED or CLUSTER_AUTHORIZATION_FAILED and changes nothing. The
 * client authenticates with SASL/PLAIN as a principal of its own, granted topic ACLs by name (never
 * cluster ones, which the other tests of this broker would see).
 */
class KafkaAdminSecurityApiTest extends SecuredBrokerTestSupport {
  @Autowired KafkaListener kafka;

  private Admin admin;
  private String principal;

  /** A key of a principal of its own (SASL/PLAIN: key id and secret), with no grants yet. */
  @BeforeEach
  void connect() {
    principal = "User:kafka-admin-" + COUNTER.incrementAndGet();
    Key key = newKey(principal);
    admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                "127.0.0.1:" + kafka.port(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                30_000,
                AdminClientConfig.SECURITY_PROTOCOL_CONFIG,
                "SASL_PLAINTEXT",
                SaslConfigs.SASL_MECHANISM,
                "PLAIN",
                SaslConfigs.SASL_JAAS_CONFIG,
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
                    + key.id()
                    + "\" password=\""
                    + key.secret()
                    + "\";"));
  }

  @AfterEach
  void close() {
    admin.close();
  }

  private static Throwable causeOf(Future<?> future) throws InterruptedException {
    try {
      future.get();
      throw new AssertionError("succeeded");
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  private static String name() {
    return "kafka-admin-sec-" + COUNTER.incrementAndGet();
  }

  private boolean exists(String topic) {
    return send("GET", v3("/topics/" + topic), ADMIN, null).status() == 200;
  }

  @Test
  void aTopicIsCreatedOnlyWithAdminOnIt() throws Exception {
    String allowed = name();
    String refused = name();
    acl(principal, "ADMIN", "TOPIC", "LITERAL", allowed);

    CreateTopicsResult created =
        admin.createTopics(
            List.of(new NewTopic(allowed, 1, (short) 1), new NewTopic(refused, 1, (short) 1)));

    assertThat(created.values().get(allowed).get()).isNull();
    assertThat(created.config(allowed).get().get("retention.ms"))
        .as("ADMIN implies READ: the configs are told")
        .isNotNull();
    assertThat(causeOf(created.values().get(refused)))
        .isInstanceOf(TopicAuthorizationException.class);
    assertThat(exists(allowed)).isTrue();
    assertThat(exists(refused)).isFalse();
  }

  @Test
  void aWriterMayNotGrowDeleteConfigureOrDescribeTheConfigsOfATopic() throws Exception {
    String topic = name();
    createTopic(topic);
    acl(principal, "WRITE", "TOPIC", "LITERAL", topic);
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);

    assertThat(causeOf(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(2))).all()))
        .isInstanceOf(TopicAuthorizationException.class);
    assertThat(
            causeOf(
                admin
                    .incrementalAlterConfigs(
                        Map.of(
                            resource,
                            List.of(
                                new AlterConfigOp(
                                    new ConfigEntry("retention.ms", "1"),
                                    AlterConfigOp.OpType.SET))))
                    .all()))
        .isInstanceOf(TopicAuthorizationException.class);
    assertThat(causeOf(admin.describeConfigs(List.of(resource)).all()))
        .isInstanceOf(TopicAuthorizationException.class);
    assertThat(causeOf(admin.deleteTopics(List.of(topic)).all()))
        .isInstanceOf(TopicAuthorizationException.class);

    assertThat(exists(topic)).isTrue();
    assertThat(
            send("GET", v3("/topics/" + topic), ADMIN, null)
                .json()
                .get("partitions_count")
                .intValue())
        .isEqualTo(1);
    assertThat(
            send("GET", v3("/topics/" + topic + "/configs/retention.ms"), ADMIN, null)
                .json()
                .get("value")
                .stringValue())
        .isEqualTo("604800000");
  }

  @Test
  void brokerConfigsElectionsAndReassignmentsNeedTheCluster() throws Exception {
    String topic = name();
    createTopic(topic);
    String brokerId =
        String.valueOf(
            send("GET", v3("/brokers"), ADMIN, null)
                .json()
                .get("data")
                .get(0)
                .get("broker_id")
                .intValue());
    ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, brokerId);

    assertThat(causeOf(admin.describeConfigs(List.of(broker)).all()))
        .isInstanceOf(ClusterAuthorizationException.class);
    assertThat(
            causeOf(
                admin
                    .incrementalAlterConfigs(
                        Map.of(
                            broker,
                            List.of(
                                new AlterConfigOp(
                                    new ConfigEntry("num.partitions", "3"),
                                    AlterConfigOp.OpType.SET))))
                    .all()))
        .isInstanceOf(ClusterAuthorizationException.class);
    assertThat(
            causeOf(
                admin
                    .electLeaders(ElectionType.PREFERRED, Set.of(new TopicPartition(topic, 0)))
                    .partitions()))
        .isInstanceOf(ClusterAuthorizationException.class);
    TopicPartition partition = new TopicPartition(topic, 0);
    assertThat(
            causeOf(
                admin
                    .alterPartitionReassignments(
                        Map.of(
                            partition,
                            Optional.of(
                                new NewPartitionReassignment(List.of(Integer.parseInt(brokerId))))))
                    .values()
                    .get(partition)))
        .isInstanceOf(ClusterAuthorizationException.class);
    assertThat(causeOf(admin.listPartitionReassignments().reassignments()))
        .isInstanceOf(ClusterAuthorizationException.class);
    assertThat(
            admin
                .describeCluster(new DescribeClusterOptions().includeAuthorizedOperations(true))
                .authorizedOperations()
                .get())
        .as("no ACL on the cluster")
        .isEmpty();
  }
}
