package dev.tributary.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.tributary.kafka.KafkaListener;
import java.io.EOFException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * The Kafka listener of a broker with authentication on: unmodified kafka-clients speak SASL/PLAIN
 * with an API key's id and secret, and the ACLs REST obeys decide what they may do.
 */
class KafkaSecurityApiTest extends SecuredBrokerTestSupport {
  @Autowired KafkaListener kafka;

  private Properties sasl(String user, String password) {
    Properties p = new Properties();
    p.put("bootstrap.servers", "127.0.0.1:" + kafka.port());
    p.put("security.protocol", "SASL_PLAINTEXT");
    p.put("sasl.mechanism", "PLAIN");
    p.put(
        "sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
            + user
            + "\" password=\""
            + password
            + "\";");
    p.put("request.timeout.ms", "10000");
    p.put("default.api.timeout.ms", "15000");
    return p;
  }

  private Properties sasl(Key key) {
    return sasl(key.id(), key.secret());
  }

  private static KafkaProducer<String, String> producer(Properties p) {
    p.put("acks", "all");
    p.put("enable.idempotence", "false");
    p.put("max.block.ms", "10000");
    p.put("delivery.timeout.ms", "15000");
    p.put("retries", "0");
    return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
  }

  private static KafkaConsumer<String, String> consumer(Properties p) {
    p.put("enable.auto.commit", "false");
    return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
  }

  private static String topicName(String prefix) {
    return prefix + "-" + COUNTER.incrementAndGet();
  }

  /** A key for a new principal, and a topic it has {@code operations} on. */
  private Key keyWith(String topic, String... operations) {
    Key key = newKey("User:kafka-" + COUNTER.incrementAndGet());
    for (String operation : operations) {
      acl(key.principal(), operation, "TOPIC", "LITERAL", topic);
    }
    return key;
  }

  private static Throwable sendFailure(KafkaProducer<String, String> producer, String topic) {
    try {
      producer.send(new ProducerRecord<>(topic, 0, "k", "v")).get();
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("the send to " + topic + " succeeded");
  }

  @Test
  void aKeyWithWriteAndReadProducesAndConsumesAsItsPrincipal() throws Exception {
    String topic = topicName("ksec-rw");
    createTopic(topic);
    // The ACLs name the key's principal, never its id: they apply only if the connection is it.
    Key key = keyWith(topic, "WRITE", "READ");

    try (KafkaProducer<String, String> producer = producer(sasl(key))) {
      for (int i = 0; i < 3; i++) {
        assertThat(producer.send(new ProducerRecord<>(topic, 0, "k", "v" + i)).get().offset())
            .isEqualTo(i);
      }
    }
    try (KafkaConsumer<String, String> consumer = consumer(sasl(key))) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      List<String> values = new ArrayList<>();
      long deadline = System.currentTimeMillis() + 20_000;
      while (values.size() < 3 && System.currentTimeMillis() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
      }
      assertThat(values).containsExactly("v0", "v1", "v2");
    }
  }

  @Test
  void aWrongSecretOrAnUnknownKeyFailsAuthenticationAsKafkaSays() throws Exception {
    Key key = newKey("User:kafka-" + COUNTER.incrementAndGet());
    for (Properties wrong :
        List.of(
            sasl(key.id(), key.secret() + "x"),
            sasl("no-such-key", key.secret()),
            sasl(key.principal(), key.secret()))) {
      try (Admin admin = Admin.create(wrong)) {
        assertThatThrownBy(() -> admin.listTopics().names().get())
            .isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOf(SaslAuthenticationException.class)
            .hasMessageContaining("Authentication failed: Invalid username or password");
      }
    }
    // The broker serves on, and the refusals did not lock the key out.
    assertThat(send("GET", "/actuator/health/readiness", null, null).status()).isEqualTo(200);
    try (Admin admin = Admin.create(sasl(key))) {
      assertThat(admin.listTopics().names().get()).isEmpty(); // no ACLs yet: nothing to describe
    }
  }

  @Test
  void anAclGrantedOverRestDecidesTheOpenKafkaConnectionsNextRequest() throws Exception {
    String topic = topicName("ksec-grant");
    createTopic(topic);
    Key key = newKey("User:kafka-" + COUNTER.incrementAndGet());
    TopicPartition tp = new TopicPartition(topic, 0);

    try (KafkaProducer<String, String> producer = producer(sasl(key));
        KafkaConsumer<String, String> consumer = consumer(sasl(key))) {
      assertThat(sendFailure(producer, topic)).isInstanceOf(TopicAuthorizationException.class);
      acl(key.principal(), "WRITE", "TOPIC", "LITERAL", topic);
      assertThat(producer.send(new ProducerRecord<>(topic, 0, "k", "granted")).get().offset())
          .isZero();

      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(10)))
          .isInstanceOf(TopicAuthorizationException.class);
      acl(key.principal(), "READ", "TOPIC", "LITERAL", topic);
      List<String> values = new ArrayList<>();
      long deadline = System.currentTimeMillis() + 20_000;
      while (values.isEmpty() && System.currentTimeMillis() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
      }
      assertThat(values).containsExactly("granted");
    }
  }

  @Test
  void aClientWithoutCredentialsGetsNoAnswerAsFromKafka() {
    Properties plaintext = new Properties();
    plaintext.put("bootstrap.servers", "127.0.0.1:" + kafka.port());
    try (Admin admin = Admin.create(plaintext)) {
      // The broker closes each connection that skips the SASL exchange; the client retries
      // until its deadline, as against a Kafka SASL listener.
      assertThatThrownBy(
              () -> admin.listTopics(new ListTopicsOptions().timeoutMs(3000)).names().get())
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(TimeoutException.class);
    }
  }

  @Test
  void beforeAuthenticationOnlyApiVersionsAndTheSaslExchangeAreAnswered() throws Exception {
    try (RawKafkaConnection connection = RawKafkaConnection.open(kafka.port())) {
      ApiVersionsResponse versions =
          connection.roundTrip(
              new ApiVersionsRequest(
                  new ApiVersionsRequestData()
                      .setClientSoftwareName("raw-test")
                      .setClientSoftwareVersion("1.0"),
                  (short) 3));
      assertThat(versions.data().apiKeys().find(ApiKeys.SASL_HANDSHAKE.id)).isNotNull();
      assertThat(versions.data().apiKeys().find(ApiKeys.SASL_AUTHENTICATE.id)).isNotNull();

      SaslHandshakeResponse scram =
          connection.roundTrip(
              new SaslHandshakeRequest.Builder(
                      new SaslHandshakeRequestData().setMechanism("SCRAM-SHA-256"))
                  .build((short) 1));
      assertThat(scram.error()).isEqualTo(Errors.UNSUPPORTED_SASL_MECHANISM);
      assertThat(scram.enabledMechanisms()).containsExactly("PLAIN");
    }
    try (RawKafkaConnection connection = RawKafkaConnection.open(kafka.port())) {
      MetadataRequest metadata =
          new MetadataRequest(new MetadataRequestData().setTopics(null), (short) 12);
      assertThatThrownBy(() -> connection.roundTrip(metadata)).isInstanceOf(EOFException.class);
    }
  }

  @Test
  void aKeyWithoutWriteGetsTopicAuthorizationFailedAndAppendsNothing() throws Exception {
    String topic = topicName("ksec-ro");
    createTopic(topic);
    Key reader = keyWith(topic, "READ");
    Key nobody = newKey("User:kafka-" + COUNTER.incrementAndGet());

    try (KafkaProducer<String, String> producer = producer(sasl(reader))) {
      // Past Metadata (READ describes the topic), refused by Produce.
      assertThat(sendFailure(producer, topic))
          .isInstanceOf(TopicAuthorizationException.class)
          .satisfies(
              e ->
                  assertThat(((TopicAuthorizationException) e).unauthorizedTopics())
                      .containsExactly(topic));
    }
    try (KafkaProducer<String, String> producer = producer(sasl(nobody))) {
      // Refused by Metadata already.
      assertThat(sendFailure(producer, topic)).isInstanceOf(TopicAuthorizationException.class);
    }
    try (KafkaProducer<String, String> producer = producer(sasl("admin", ADMIN_SECRET))) {
      assertThat(producer.send(new ProducerRecord<>(topic, 0, "k", "v")).get().offset()).isZero();
    }
  }

  @Test
  void aKeyWithoutReadCannotConsume() {
    String topic = topicName("ksec-wo");
    createTopic(topic);
    Key writer = keyWith(topic, "WRITE");
    Key nobody = newKey("User:kafka-" + COUNTER.incrementAndGet());

    for (Key key : List.of(writer, nobody)) {
      try (KafkaConsumer<String, String> consumer = consumer(sasl(key))) {
        TopicPartition tp = new TopicPartition(topic, 0);
        consumer.assign(List.of(tp));
        consumer.seek(tp, 0); // straight to Fetch (no ListOffsets), refused there or by Metadata
        assertThatThrownBy(
                () -> {
                  long deadline = System.currentTimeMillis() + 20_000;
                  while (System.currentTimeMillis() < deadline) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                      throw new AssertionError("read " + r);
                    }
                  }
                })
            .as(key.principal())
            .isInstanceOf(TopicAuthorizationException.class);
      }
    }
  }

  @Test
  void metadataShowsOnlyTopicsThePrincipalMayDescribeAndRefusesTheOthersByName() throws Exception {
    String readable = topicName("ksec-md-r");
    String writable = topicName("ksec-md-w");
    String hidden = topicName("ksec-md-h");
    createTopic(readable);
    createTopic(writable);
    createTopic(hidden);
    Key key = keyWith(readable, "READ");
    acl(key.principal(), "WRITE", "TOPIC", "LITERAL", writable);

    try (Admin admin = Admin.create(sasl(key))) {
      Set<String> listed = admin.listTopics().names().get();
      assertThat(listed).containsExactlyInAnyOrder(readable, writable);

      assertThat(admin.describeTopics(List.of(readable, writable)).allTopicNames().get())
          .containsOnlyKeys(readable, writable);
      for (String refused : List.of(hidden, topicName("ksec-md-missing"))) {
        assertThatThrownBy(() -> admin.describeTopics(List.of(refused)).allTopicNames().get())
            .as("existing or not, a topic it may not describe is refused")
            .cause()
            .isInstanceOf(TopicAuthorizationException.class);
      }
    }
    Uuid hiddenId;
    try (Admin admin = Admin.create(sasl("admin", ADMIN_SECRET))) {
      hiddenId = admin.describeTopics(List.of(hidden)).allTopicNames().get().get(hidden).topicId();
      // The admin finds it by id: the refusal below is the key's, not a lookup that fails.
      assertThat(
              admin
                  .describeTopics(TopicCollection.ofTopicIds(List.of(hiddenId)))
                  .allTopicIds()
                  .get())
          .containsOnlyKeys(hiddenId);
    }
    try (RawKafkaConnection connection =
        RawKafkaConnection.authenticated(kafka.port(), key.id(), key.secret())) {
      MetadataResponse byId =
          connection.roundTrip(
              new MetadataRequest(
                  new MetadataRequestData()
                      .setTopics(
                          List.of(
                              new MetadataRequestData.MetadataRequestTopic().setTopicId(hiddenId),
                              new MetadataRequestData.MetadataRequestTopic()
                                  .setTopicId(Uuid.randomUuid())))
                      .setAllowAutoTopicCreation(false),
                  (short) 12));
      // Kafka's answer: ids are not secret, names are (Admin reports it as an unknown id).
      assertThat(byId.data().topics())
          .extracting(t -> Errors.forCode(t.errorCode()), t -> t.name())
          .containsExactly(
              tuple(Errors.TOPIC_AUTHORIZATION_FAILED, null), tuple(Errors.UNKNOWN_TOPIC_ID, null));
    }
  }

  @Test
  void autoCreatingATopicByProducingTakesAdminOnIt() throws Exception {
    String prefix = topicName("ksec-auto") + "-";
    Key producerOnly = newKey("User:kafka-" + COUNTER.incrementAndGet());
    acl(producerOnly.principal(), "WRITE", "TOPIC", "PREFIXED", prefix);
    acl(producerOnly.principal(), "READ", "TOPIC", "PREFIXED", prefix);
    Key creator = newKey("User:kafka-" + COUNTER.incrementAndGet());
    acl(creator.principal(), "ADMIN", "TOPIC", "PREFIXED", prefix);

    try (KafkaProducer<String, String> producer = producer(sasl(producerOnly))) {
      assertThat(sendFailure(producer, prefix + "denied"))
          .isInstanceOf(TopicAuthorizationException.class);
    }
    assertThat(send("GET", v3("/topics/" + prefix + "denied"), ADMIN, null).status())
        .isEqualTo(404);
    try (KafkaProducer<String, String> producer = producer(sasl(creator))) {
      assertThat(
              producer.send(new ProducerRecord<>(prefix + "created", 0, "k", "v")).get().offset())
          .isZero();
    }
    assertThat(send("GET", v3("/topics/" + prefix + "created"), ADMIN, null).status())
        .isEqualTo(200);
  }

  @Test
  void aDeletedKeysConnectionIsClosedAndCannotAuthenticateAgain() throws Exception {
    String topic = topicName("ksec-del");
    createTopic(topic);
    Key key = keyWith(topic, "READ");

    try (Admin admin = Admin.create(sasl(key))) {
      assertThat(admin.listTopics().names().get()).containsExactly(topic);

      assertThat(send("DELETE", v3("/api-keys/" + key.id()), ADMIN, null).status()).isEqualTo(204);

      await("the deletion reaches the broker's image")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThatThrownBy(() -> admin.listTopics().names().get())
                      .cause()
                      .isInstanceOf(SaslAuthenticationException.class));
    }
  }

  @Test
  void theBrokerRegistersItsKafkaListenerAsSaslPlaintext() {
    JsonNode listeners = send("GET", v3("/brokers/1"), ADMIN, null).json().get("listeners");
    List<String> kafkaListeners = new ArrayList<>();
    listeners.forEach(
        l -> {
          if (l.get("name").stringValue().equals("KAFKA")) {
            assertThat(l.get("port").intValue()).isEqualTo(kafka.port());
            kafkaListeners.add(l.get("security_protocol").stringValue());
          }
        });
    assertThat(kafkaListeners).containsExactly("SASL_PLAINTEXT");
  }
}
