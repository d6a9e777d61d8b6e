package dev.tributary.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.security.ApiKeySecrets;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Authentication and authorisation of API requests on a broker with security on: API keys (bearer
 * and basic), the bootstrap admin key, ACLs by literal name, prefix and wildcard, the checks made
 * in controllers, the cluster secret with a forwarded principal and on every internal endpoint, and
 * the denial counter. Consumers are in {@link ConsumerSecurityApiTest}, the dashboard in {@link
 * DashboardSecurityApiTest}; all three share one broker ({@link SecuredBrokerTestSupport}).
 */
class SecurityApiTest extends SecuredBrokerTestSupport {
  @Test
  void adminBootstrapKeyHashIsTheSecretsSha256() {
    assertThat(ApiKeySecrets.sha256(ADMIN_SECRET)).isEqualTo(ADMIN_SECRET_SHA256);
  }

  @Test
  void requestsWithoutCredentialsAreRefusedButHealthIsOpen() {
    Response r = send("GET", "/topics", null, null);
    assertError(r, 401, 40102, "Authentication is required");
    assertThat(r.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"tributary\"");
    assertThat(send("GET", "/actuator/health/readiness", null, null).status()).isEqualTo(200);
    assertError(send("POST", "/topics/x", null, records()), 401, 40102, "required");
    // Spring Security's firewall refuses encoded dots before anyone is asked for credentials.
    assertError(send("GET", "/topics/%2e%2e/partitions", ADMIN, null), 400, 40006, "not allowed");
  }

  @Test
  void wrongOrMalformedCredentialsAreRefusedNotTreatedAsAnonymous() {
    assertError(send("GET", "/topics", "admin.wrong", null), 401, 40102, "not valid");
    assertError(send("GET", "/topics", "no-dot-here", null), 401, 40102, "not valid");
    Response basic = send("GET", "/topics", null, null, "Authorization", "Basic !!!not-base64!!!");
    assertError(basic, 401, 40102, "not valid");
  }

  @Test
  void bearerAndBasicBothAuthenticateAnApiKey() {
    Key alice = newKey("User:alice-" + COUNTER.incrementAndGet());
    String basic =
        "Basic "
            + java.util.Base64.getEncoder()
                .encodeToString(
                    (alice.id() + ":" + alice.secret()).getBytes(StandardCharsets.UTF_8));
    Response viaBasic = send("GET", "/v3/whoami", null, null, "Authorization", basic);
    assertThat(viaBasic.status()).isEqualTo(200);
    assertThat(viaBasic.json().get("principal").stringValue()).isEqualTo(alice.principal());
    Response viaBearer = send("GET", "/v3/whoami", alice.token(), null);
    assertThat(viaBearer.json().get("principal").stringValue()).isEqualTo(alice.principal());
    assertThat(viaBearer.json().get("cluster_operations").get("ADMIN").booleanValue()).isFalse();
  }

  @Test
  void readGrantByPrefixAllowsReadingButNotProducingOrAdministering() {
    String prefix = "orders" + COUNTER.incrementAndGet() + "-";
    String orders = prefix + "eu";
    String payments = "payments" + COUNTER.incrementAndGet();
    createTopic(orders);
    createTopic(payments);
    assertThat(send("POST", "/topics/" + orders, ADMIN, records()).status()).isEqualTo(200);
    Key reader = newKey("User:reader-" + COUNTER.incrementAndGet());
    acl(reader.principal(), "READ", "TOPIC", "PREFIXED", prefix);

    Response read =
        send("GET", "/topics/" + orders + "/partitions/0/records?offset=0", reader.token(), null);
    assertThat(read.status()).isEqualTo(200);
    assertThat(read.json().size()).isEqualTo(1);
    assertError(
        send("GET", "/topics/" + payments + "/partitions/0/records?offset=0", reader.token(), null),
        403,
        40303,
        reader.principal() + " is not authorized to READ topic '" + payments + "'");
    assertError(
        send("POST", "/topics/" + orders, reader.token(), records()), 403, 40303, "WRITE topic");
    assertError(
        send("DELETE", v3("/topics/" + orders), reader.token(), null), 403, 40303, "ADMIN topic");
    assertError(send("GET", v3("/acls"), reader.token(), null), 403, 40305, "ADMIN the cluster");

    // Lists show only what the principal may read.
    List<String> v2 = strings(send("GET", "/topics", reader.token(), null).json());
    assertThat(v2).contains(orders).doesNotContain(payments);
    List<String> v3 = new ArrayList<>();
    send("GET", v3("/topics"), reader.token(), null)
        .json()
        .get("data")
        .forEach(t -> v3.add(t.get("topic_name").stringValue()));
    assertThat(v3).contains(orders).doesNotContain(payments);
  }

  @Test
  void writeGrantAllowsProducingButCreatingATopicTakesAdmin() {
    String topic = "events" + COUNTER.incrementAndGet();
    createTopic(topic);
    Key writer = newKey("User:writer-" + COUNTER.incrementAndGet());
    acl(writer.principal(), "WRITE", "TOPIC", "LITERAL", topic);
    Response produced = send("POST", "/topics/" + topic, writer.token(), records());
    assertThat(produced.status()).isEqualTo(200);
    assertThat(produced.json().get("offsets").get(0).get("offset").asLong()).isZero();
    // WRITE on a topic that does not exist would auto-create it: that needs ADMIN (Kafka: CREATE).
    String absent = "absent" + COUNTER.incrementAndGet();
    acl(writer.principal(), "WRITE", "TOPIC", "LITERAL", absent);
    assertError(
        send("POST", "/topics/" + absent, writer.token(), records()), 403, 40303, "ADMIN topic");
    assertThat(send("GET", v3("/topics/" + absent), ADMIN, null).status()).isEqualTo(404);
    assertError(
        send(
            "POST",
            v3("/topics"),
            writer.token(),
            "{\"topic_name\":\"" + absent + "\"}",
            "Content-Type",
            "application/json"),
        403,
        40303,
        "ADMIN topic '" + absent + "'");
    // An ADMIN grant by prefix lets it create.
    acl(writer.principal(), "ADMIN", "TOPIC", "PREFIXED", absent);
    assertThat(send("POST", "/topics/" + absent, writer.token(), records()).status())
        .isEqualTo(200);
  }

  @Test
  void wildcardGrantCoversEveryTopicAndDeletingTheAclTakesItAway() {
    String topic = "any" + COUNTER.incrementAndGet();
    createTopic(topic);
    Key key = newKey("User:wild-" + COUNTER.incrementAndGet());
    acl(key.principal(), "READ", "TOPIC", "LITERAL", "*");
    String path = "/topics/" + topic + "/partitions/0/records?offset=0";
    assertThat(send("GET", path, key.token(), null).status()).isEqualTo(200);
    Response deleted =
        send(
            "DELETE",
            v3("/acls?resource_type=TOPIC&principal=" + url(key.principal())),
            ADMIN,
            null);
    assertThat(deleted.status()).isEqualTo(200);
    assertThat(deleted.json().get("data").size()).isEqualTo(1);
    assertError(send("GET", path, key.token(), null), 403, 40303, "READ topic");
  }

  @Test
  void aDeletedKeyNoLongerAuthenticates() {
    Key key = newKey("User:temp-" + COUNTER.incrementAndGet());
    assertThat(send("GET", "/v3/whoami", key.token(), null).status()).isEqualTo(200);
    assertThat(send("DELETE", v3("/api-keys/" + key.id()), ADMIN, null).status()).isEqualTo(204);
    assertError(send("GET", "/v3/whoami", key.token(), null), 401, 40102, "not valid");
    assertError(send("DELETE", v3("/api-keys/" + key.id()), ADMIN, null), 404, 40410, key.id());
    // The key list never shows secrets or hashes.
    String list = send("GET", v3("/api-keys"), ADMIN, null).body();
    assertThat(list)
        .doesNotContain(key.secret())
        .doesNotContain(ApiKeySecrets.sha256(key.secret()));
  }

  @Test
  void badAclRequestsAreRefusedAndChangeNothing() {
    int before = send("GET", v3("/acls"), ADMIN, null).json().get("data").size();
    assertError(
        postJson(
            v3("/acls"),
            "{\"principal\":\"User:x\",\"operation\":\"FLY\",\"resource_type\":\"TOPIC\",\"resource_name\":\"t\"}"),
        400,
        40002,
        "operation must be one of");
    assertError(
        postJson(
            v3("/acls"),
            "{\"principal\":\"nobody\",\"operation\":\"READ\",\"resource_type\":\"TOPIC\",\"resource_name\":\"t\"}"),
        400,
        40002,
        "principal must be Type:name");
    assertError(
        postJson(
            v3("/acls"),
            "{\"principal\":\"User:x\",\"operation\":\"READ\",\"resource_type\":\"CLUSTER\",\"resource_name\":\"t\"}"),
        400,
        40002,
        "kafka-cluster");
    assertError(
        postJson(
            v3("/acls"),
            "{\"principal\":\"User:x\",\"operation\":\"READ\",\"resource_type\":\"TOPIC\",\"resource_name\":\"t\",\"permission\":\"DENY\"}"),
        400,
        40002,
        "only allow");
    assertError(send("DELETE", v3("/acls"), ADMIN, null), 400, 40003, "resource_type is required");
    assertThat(send("GET", v3("/acls"), ADMIN, null).json().get("data").size()).isEqualTo(before);
  }

  @Test
  void theClusterSecretAuthenticatesBrokersAndOnlyThenAForwardedPrincipal() {
    String topic = "fwd" + COUNTER.incrementAndGet();
    createTopic(topic);
    // A principal header alone is no credential.
    assertError(
        send("GET", "/topics", null, null, RequestPrincipal.ON_BEHALF_OF_HEADER, "User:admin"),
        401,
        40102,
        "required");
    assertError(
        send("GET", "/topics", null, null, "X-Tributary-Cluster-Secret", "guess"),
        401,
        40101,
        "cluster secret is wrong");
    // With the secret, a broker acts for the principal it names, with that principal's rights.
    Response forwarded =
        send(
            "POST",
            "/topics/" + topic,
            null,
            records(),
            "X-Tributary-Cluster-Secret",
            CLUSTER_SECRET,
            RequestPrincipal.ON_BEHALF_OF_HEADER,
            "User:nobody");
    assertError(forwarded, 403, 40303, "User:nobody is not authorized to WRITE");
    Response asBroker =
        send(
            "POST",
            "/topics/" + topic,
            null,
            records(),
            "X-Tributary-Cluster-Secret",
            CLUSTER_SECRET);
    assertThat(asBroker.status()).isEqualTo(200);
  }

  /**
   * Every internal endpoint (found by reflection, so a new one is covered) refuses a call without
   * the cluster secret, or with a wrong one, whatever credentials it carries; an admin's API key is
   * no substitute. With the secret, a replica fetch from a broker that is not registered (a forged
   * follower) is refused as stale before it can touch any follower state
   * (ReplicaManagerReplicaFetchTest proves it moves no high watermark).
   */
  @Test
  void internalEndpointsNeedTheClusterSecretAndAForgedFollowerIsRefused() throws Exception {
    List<String> paths = new ArrayList<>(List.of("/internal/v1/dashboard/crash"));
    for (Class<?> api :
        List.of(
            dev.tributary.transport.http.InternalApi.class,
            dev.tributary.transport.http.GroupWire.class)) {
      for (java.lang.reflect.Field f : api.getFields()) {
        if (f.getType() == String.class && ((String) f.get(null)).startsWith("/internal/")) {
          paths.add((String) f.get(null));
        }
      }
    }
    assertThat(paths).hasSizeGreaterThan(15);
    // However the path is encoded: MVC routes /%69nternal/... to the same handler.
    paths.add("/%69nternal/v1/controller/security");
    paths.add("/inte%72nal/v1/groups/join");
    for (String path : paths) {
      for (String method : List.of("GET", "POST")) {
        assertError(send(method, path, ADMIN, "{}"), 401, 40101, "cluster secret");
        assertError(
            send(method, path, null, "{}", "X-Tributary-Cluster-Secret", "wrong"),
            401,
            40101,
            "cluster secret");
      }
    }
    String topic = "forged" + COUNTER.incrementAndGet();
    createTopic(topic);
    byte[] fetch =
        dev.tributary.transport.http.ReplicaFetchCodec.encode(
            new dev.tributary.replication.ReplicaFetch.Request(
                7,
                0,
                0,
                1 << 20,
                List.of(
                    new dev.tributary.replication.ReplicaFetch.PartitionRequest(
                        new dev.tributary.common.TopicPartition(topic, 0), 0, 0, 1 << 20))));
    HttpResponse<byte[]> answer =
        CLIENT.send(
            HttpRequest.newBuilder(
                    URI.create(
                        "http://127.0.0.1:"
                            + port
                            + dev.tributary.transport.http.InternalApi.REPLICA_FETCH))
                .header("X-Tributary-Cluster-Secret", CLUSTER_SECRET)
                .header("Content-Type", dev.tributary.transport.http.InternalApi.REPLICA_MEDIA_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(fetch))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(
            dev.tributary.transport.http.ReplicaFetchCodec.decodeResponse(
                    java.nio.ByteBuffer.wrap(answer.body()))
                .error())
        .isEqualTo(dev.tributary.common.errors.Errors.STALE_BROKER_EPOCH);
  }

  /**
   * Replica fetch is answered ahead of the filter chain ({@code InternalReplicaFilter}), so it
   * refuses what it cannot take itself, in the same JSON shape: another body type (415), a body
   * that does not decode (400), and it serves an epoch query from a stranger as stale. A query
   * string (the endpoints take none) goes the ordinary way and nothing there serves it.
   */
  @Test
  void replicaFetchRefusesWhatItCannotReadAndNothingElseServesIt() throws Exception {
    String[] broker = {"X-Tributary-Cluster-Secret", CLUSTER_SECRET};
    String fetch = dev.tributary.transport.http.InternalApi.REPLICA_FETCH;
    String epochs = dev.tributary.transport.http.InternalApi.REPLICA_EPOCHS;
    String replicaType = dev.tributary.transport.http.InternalApi.REPLICA_MEDIA_TYPE;
    assertError(
        send("POST", fetch, null, "{}", broker[0], broker[1], "Content-Type", "application/json"),
        415,
        41501,
        replicaType);
    assertError(
        send("POST", fetch, null, "\u0001", broker[0], broker[1], "Content-Type", replicaType),
        400,
        40002,
        "malformed replica fetch body");
    assertError(
        send("POST", epochs, null, "", broker[0], broker[1], "Content-Type", replicaType),
        400,
        40002,
        "malformed replica fetch body");
    Response withQuery =
        send("POST", fetch + "?x=1", null, "{}", broker[0], broker[1], "Content-Type", replicaType);
    assertThat(withQuery.status()).as(withQuery.body()).isEqualTo(404);
    byte[] epochQuery =
        dev.tributary.transport.http.ReplicaFetchCodec.encode(
            new dev.tributary.replication.ReplicaFetch.EpochRequest(
                7,
                0,
                List.of(
                    new dev.tributary.replication.ReplicaFetch.EpochPartitionRequest(
                        new dev.tributary.common.TopicPartition("absent", 0), 0, 0))));
    HttpResponse<byte[]> answer =
        CLIENT.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + epochs))
                .header(broker[0], broker[1])
                .header("Content-Type", replicaType)
                .POST(HttpRequest.BodyPublishers.ofByteArray(epochQuery))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.headers().firstValue("Content-Type")).hasValue(replicaType);
    assertThat(
            dev.tributary.transport.http.ReplicaFetchCodec.decodeEpochResponse(
                    java.nio.ByteBuffer.wrap(answer.body()))
                .error())
        .isEqualTo(dev.tributary.common.errors.Errors.STALE_BROKER_EPOCH);
  }

  @Test
  void headIsAReadToo() {
    String topic = "head" + COUNTER.incrementAndGet();
    createTopic(topic);
    Key nobody = newKey("User:head-" + COUNTER.incrementAndGet());
    for (String path :
        List.of(
            "/topics/" + topic,
            "/topics/" + topic + "/partitions/0/records?offset=0",
            v3("/topics/" + topic))) {
      assertThat(send("HEAD", path, nobody.token(), null).status()).as(path).isEqualTo(403);
    }
  }

  @Test
  void overLongNamesAreRefusedNotCrashed() {
    String longName = "é".repeat(40_000);
    assertError(
        postJson(
            v3("/acls"),
            "{\"principal\":\"User:x\",\"operation\":\"READ\",\"resource_type\":\"TOPIC\","
                + "\"resource_name\":\""
                + longName
                + "\"}"),
        400,
        40002,
        "resource_name must be 1 to 255");
    assertError(
        postJson(
            v3("/api-keys"), "{\"principal\":\"User:x\",\"description\":\"" + longName + "\"}"),
        400,
        40002,
        "at most 1024");
  }

  @Test
  void denialsAreCounted() {
    double before = denials("unauthenticated");
    send("GET", "/topics", null, null);
    send("GET", "/topics", "admin.wrong", null);
    assertThat(denials("unauthenticated")).isEqualTo(before + 2);
    Key nobody = newKey("User:nobody-" + COUNTER.incrementAndGet());
    double forbiddenBefore = denials("forbidden");
    send("GET", v3("/acls"), nobody.token(), null);
    assertThat(denials("forbidden")).isEqualTo(forbiddenBefore + 1);
  }

  private double denials(String reason) {
    Response r =
        send(
            "GET",
            "/actuator/metrics/tributary.security.denials?tag=reason:" + reason,
            ADMIN,
            null);
    if (r.status() == 404) {
      return 0;
    }
    return r.json().get("measurements").get(0).get("value").asDouble();
  }
}
