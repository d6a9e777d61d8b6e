package dev.tributary.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.security.ApiKeySecrets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Authentication and authorisation end to end on one in-process broker with security on: API keys
 * (bearer and basic), the bootstrap admin key, ACLs by literal name, prefix and wildcard, the
 * checks made in controllers, consumer instances kept to their principal, the cluster secret with a
 * forwarded principal, dashboard sign-in, the socket's upgrade, and the denial counter.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "tributary.security.enabled=true",
      "tributary.security.bootstrap-api-key=admin:" + SecurityApiTest.ADMIN_SECRET_SHA256,
      "tributary.cluster-secret=" + SecurityApiTest.CLUSTER_SECRET,
      "tributary.group.initial-rebalance-delay-ms=0",
      "logging.level.dev.tributary=WARN"
    })
class SecurityApiTest {
  static final String ADMIN_SECRET = "s3cret-for-tests-only-0123456789abcdefghij";
  // sha256(ADMIN_SECRET), checked in adminBootstrapKeyHashIsTheSecretsSha256
  static final String ADMIN_SECRET_SHA256 =
      "e2a0fff117d97083d5b9ff14e5ab42cb3b7fa6931d70c2465171658635d1bbce";
  static final String CLUSTER_SECRET = "cluster-secret-for-security-test";
  static final String ADMIN = "admin." + ADMIN_SECRET;
  private static final Path DATA_DIR = freshDataDir();
  private static final AtomicInteger COUNTER = new AtomicInteger();
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static volatile String clusterId;

  @LocalServerPort int port;

  @DynamicPropertySource
  static void dataDir(DynamicPropertyRegistry registry) {
    registry.add("tributary.data-dir", DATA_DIR::toString);
  }

  @BeforeEach
  void brokerReady() {
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> send("GET", "/actuator/health/readiness", null, null).status == 200);
    if (clusterId == null) {
      clusterId =
          send("GET", "/v3/clusters", ADMIN, null)
              .json()
              .get("data")
              .get(0)
              .get("cluster_id")
              .stringValue();
    }
  }

  @Test
  void adminBootstrapKeyHashIsTheSecretsSha256() {
    assertThat(ApiKeySecrets.sha256(ADMIN_SECRET)).isEqualTo(ADMIN_SECRET_SHA256);
  }

  @Test
  void requestsWithoutCredentialsAreRefusedButHealthIsOpen() {
    Response r = send("GET", "/topics", null, null);
    assertError(r, 401, 40102, "Authentication is required");
    assertThat(r.headers.firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"tributary\"");
    assertThat(send("GET", "/actuator/health/readiness", null, null).status).isEqualTo(200);
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
                .encodeToString((alice.id + ":" + alice.secret).getBytes(StandardCharsets.UTF_8));
    Response viaBasic = send("GET", "/v3/whoami", null, null, "Authorization", basic);
    assertThat(viaBasic.status).isEqualTo(200);
    assertThat(viaBasic.json().get("principal").stringValue()).isEqualTo(alice.principal);
    Response viaBearer = send("GET", "/v3/whoami", alice.token(), null);
    assertThat(viaBearer.json().get("principal").stringValue()).isEqualTo(alice.principal);
    assertThat(viaBearer.json().get("cluster_operations").get("ADMIN").booleanValue()).isFalse();
  }

  @Test
  void readGrantByPrefixAllowsReadingButNotProducingOrAdministering() {
    String prefix = "orders" + COUNTER.incrementAndGet() + "-";
    String orders = prefix + "eu";
    String payments = "payments" + COUNTER.incrementAndGet();
    createTopic(orders);
    createTopic(payments);
    assertThat(send("POST", "/topics/" + orders, ADMIN, records()).status).isEqualTo(200);
    Key reader = newKey("User:reader-" + COUNTER.incrementAndGet());
    acl(reader.principal, "READ", "TOPIC", "PREFIXED", prefix);

    Response read =
        send("GET", "/topics/" + orders + "/partitions/0/records?offset=0", reader.token(), null);
    assertThat(read.status).isEqualTo(200);
    assertThat(read.json().size()).isEqualTo(1);
    assertError(
        send("GET", "/topics/" + payments + "/partitions/0/records?offset=0", reader.token(), null),
        403,
        40303,
        reader.principal + " is not authorized to READ topic '" + payments + "'");
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
    acl(writer.principal, "WRITE", "TOPIC", "LITERAL", topic);
    Response produced = send("POST", "/topics/" + topic, writer.token(), records());
    assertThat(produced.status).isEqualTo(200);
    assertThat(produced.json().get("offsets").get(0).get("offset").asLong()).isZero();
    // WRITE on a topic that does not exist would auto-create it: that needs ADMIN (Kafka: CREATE).
    String absent = "absent" + COUNTER.incrementAndGet();
    acl(writer.principal, "WRITE", "TOPIC", "LITERAL", absent);
    assertError(
        send("POST", "/topics/" + absent, writer.token(), records()), 403, 40303, "ADMIN topic");
    assertThat(send("GET", v3("/topics/" + absent), ADMIN, null).status).isEqualTo(404);
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
    acl(writer.principal, "ADMIN", "TOPIC", "PREFIXED", absent);
    assertThat(send("POST", "/topics/" + absent, writer.token(), records()).status).isEqualTo(200);
  }

  @Test
  void wildcardGrantCoversEveryTopicAndDeletingTheAclTakesItAway() {
    String topic = "any" + COUNTER.incrementAndGet();
    createTopic(topic);
    Key key = newKey("User:wild-" + COUNTER.incrementAndGet());
    acl(key.principal, "READ", "TOPIC", "LITERAL", "*");
    String path = "/topics/" + topic + "/partitions/0/records?offset=0";
    assertThat(send("GET", path, key.token(), null).status).isEqualTo(200);
    Response deleted =
        send(
            "DELETE", v3("/acls?resource_type=TOPIC&principal=" + url(key.principal)), ADMIN, null);
    assertThat(deleted.status).isEqualTo(200);
    assertThat(deleted.json().get("data").size()).isEqualTo(1);
    assertError(send("GET", path, key.token(), null), 403, 40303, "READ topic");
  }

  @Test
  void aDeletedKeyNoLongerAuthenticates() {
    Key key = newKey("User:temp-" + COUNTER.incrementAndGet());
    assertThat(send("GET", "/v3/whoami", key.token(), null).status).isEqualTo(200);
    assertThat(send("DELETE", v3("/api-keys/" + key.id), ADMIN, null).status).isEqualTo(204);
    assertError(send("GET", "/v3/whoami", key.token(), null), 401, 40102, "not valid");
    assertError(send("DELETE", v3("/api-keys/" + key.id), ADMIN, null), 404, 40410, key.id);
    // The key list never shows secrets or hashes.
    String list = send("GET", v3("/api-keys"), ADMIN, null).body;
    assertThat(list).doesNotContain(key.secret).doesNotContain(ApiKeySecrets.sha256(key.secret));
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
  void consumersNeedTheGroupAndTopicGrantsAndKeepTheirInstancesToThemselves() {
    String topic = "c" + COUNTER.incrementAndGet();
    String group = "g" + COUNTER.incrementAndGet();
    createTopic(topic);
    Key alice = newKey("User:alice-" + COUNTER.incrementAndGet());
    Key bob = newKey("User:bob-" + COUNTER.incrementAndGet());
    String v2 = "application/vnd.kafka.v2+json";
    assertError(
        send("POST", "/consumers/" + group, alice.token(), "{}", "Content-Type", v2),
        403,
        40304,
        "READ group '" + group + "'");
    acl(alice.principal, "READ", "GROUP", "LITERAL", group);
    acl(bob.principal, "READ", "GROUP", "LITERAL", group);
    Response created = send("POST", "/consumers/" + group, alice.token(), "{}", "Content-Type", v2);
    assertThat(created.status).isEqualTo(200);
    String instance =
        "/consumers/" + group + "/instances/" + created.json().get("instance_id").stringValue();
    String subscribe = "{\"topics\":[\"" + topic + "\"]}";
    assertError(
        send("POST", instance + "/subscription", alice.token(), subscribe, "Content-Type", v2),
        403,
        40303,
        "READ topic '" + topic + "'");
    acl(alice.principal, "READ", "TOPIC", "LITERAL", topic);
    assertThat(
            send("POST", instance + "/subscription", alice.token(), subscribe, "Content-Type", v2)
                .status)
        .isEqualTo(204);
    // Bob may use the group, but not Alice's instance.
    assertError(
        send("GET", instance + "/subscription", bob.token(), null), 404, 40403, "not found");
    assertError(send("DELETE", instance, bob.token(), null), 404, 40403, "not found");
    assertThat(send("DELETE", instance, alice.token(), null).status).isEqualTo(204);
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
    assertThat(asBroker.status).isEqualTo(200);
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

  @Test
  void theDashboardSignsInWithAnApiKeyAndShowsActionsOnlyToAdmins() throws Exception {
    Response page = send("GET", "/", null, null, "Accept", "text/html");
    assertThat(page.status).isEqualTo(302);
    assertThat(page.headers.firstValue("Location").orElseThrow()).endsWith("/login");
    assertThat(send("GET", "/login", null, null).body).contains("name=\"key_id\"");

    Key reader = newKey("User:viewer-" + COUNTER.incrementAndGet());
    acl(reader.principal, "READ", "CLUSTER", "LITERAL", "kafka-cluster");
    Response wrong = signIn(reader.id, "wrong");
    assertThat(wrong.status).isEqualTo(401);
    assertThat(wrong.body).contains("do not match");
    Response signedIn = signIn(reader.id, reader.secret);
    assertThat(signedIn.status).isEqualTo(302);
    String cookie = signedIn.headers.firstValue("Set-Cookie").orElseThrow();
    assertThat(cookie).contains("HttpOnly").contains("SameSite=Strict");
    String session = cookie.substring(0, cookie.indexOf(';'));

    Response dashboard = send("GET", "/", null, null, "Cookie", session, "Accept", "text/html");
    assertThat(dashboard.status).isEqualTo(200);
    assertThat(dashboard.body).contains("data-can-act=\"false\"").contains(reader.principal);
    assertError(
        send(
            "POST",
            "/dashboard/actions/brokers/1/crash",
            null,
            "{}",
            "Cookie",
            session,
            "Content-Type",
            "application/json",
            "Origin",
            "http://127.0.0.1:" + port),
        403,
        40305,
        "ADMIN the cluster");

    // The socket's upgrade needs the sign-in too.
    URI ws = URI.create("ws://127.0.0.1:" + port + "/dashboard/ws");
    String origin = "http://127.0.0.1:" + port;
    assertThat(upgrade(ws, origin, null)).isEqualTo("refused: 401");
    assertThat(upgrade(ws, origin, session)).isEqualTo("open");

    // A forged or tampered cookie is nobody.
    String forged = session.substring(0, session.length() - 2) + "xx";
    assertThat(send("GET", "/dashboard/state", null, null, "Cookie", forged).status).isEqualTo(401);

    Key admin = newKey("User:ops-" + COUNTER.incrementAndGet());
    acl(admin.principal, "ADMIN", "CLUSTER", "LITERAL", "kafka-cluster");
    String adminCookie =
        signIn(admin.id, admin.secret).headers.firstValue("Set-Cookie").orElseThrow();
    Response adminPage =
        send("GET", "/", null, null, "Cookie", adminCookie.substring(0, adminCookie.indexOf(';')));
    assertThat(adminPage.body).contains("data-can-act=\"true\"");
  }

  /**
   * In a real browser: a wrong secret shows the error on the sign-in page; a reader signed in sees
   * the live page without the action forms and fault buttons, and its socket is live.
   */
  @Test
  void inABrowserAReaderSignsInAndSeesTheLivePageWithoutActions() {
    createTopic("shown" + COUNTER.incrementAndGet()); // so the page has a topic to offer deleting
    Key reader = newKey("User:browser-" + COUNTER.incrementAndGet());
    acl(reader.principal, "READ", "CLUSTER", "LITERAL", "kafka-cluster");
    dev.tributary.browser.HeadlessChromium browser =
        dev.tributary.browser.HeadlessChromium.start(1300, 900);
    try {
      org.openqa.selenium.WebDriver driver = browser.driver();
      driver.get("http://127.0.0.1:" + port + "/");
      await().atMost(Duration.ofSeconds(20)).until(() -> driver.getCurrentUrl().endsWith("/login"));
      signInWith(driver, reader.id, "not-the-secret");
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> !driver.findElements(org.openqa.selenium.By.id("login-error")).isEmpty());
      assertThat(browser.text("#login-error")).contains("do not match");
      signInWith(driver, reader.id, reader.secret);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> "live".equals(browser.attribute("#connection", "data-state")));
      assertThat(browser.text("#principal")).isEqualTo(reader.principal);
      assertThat(driver.findElement(org.openqa.selenium.By.id("actions")).isDisplayed()).isFalse();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  !driver
                      .findElements(
                          org.openqa.selenium.By.cssSelector("[data-action='delete-topic']"))
                      .isEmpty());
      assertThat(
              driver.findElements(
                  org.openqa.selenium.By.cssSelector("[data-action='delete-topic']")))
          .noneMatch(org.openqa.selenium.WebElement::isDisplayed);
      browser.screenshot("dashboard-reader");
    } finally {
      browser.close();
    }
  }

  private static void signInWith(org.openqa.selenium.WebDriver driver, String id, String secret) {
    org.openqa.selenium.WebElement keyId = driver.findElement(org.openqa.selenium.By.id("key-id"));
    keyId.clear();
    keyId.sendKeys(id);
    driver.findElement(org.openqa.selenium.By.id("secret")).sendKeys(secret);
    driver.findElement(org.openqa.selenium.By.id("sign-in")).click();
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
      assertThat(send("HEAD", path, nobody.token(), null).status).as(path).isEqualTo(403);
    }
  }

  /**
   * A dashboard cookie goes with every request the browser sends to the host, from any page: a
   * change made with one must come from the cluster's own pages (CSRF).
   */
  @Test
  void aDashboardSessionChangesThingsOnlyFromTheClustersOwnPages() {
    String cookie = signIn("admin", ADMIN_SECRET).headers.firstValue("Set-Cookie").orElseThrow();
    String session = cookie.substring(0, cookie.indexOf(';'));
    String acl =
        "{\"principal\":\"User:csrf\",\"operation\":\"ADMIN\",\"resource_type\":\"CLUSTER\","
            + "\"resource_name\":\"kafka-cluster\"}";
    assertError(
        send(
            "POST",
            v3("/acls"),
            null,
            acl,
            "Cookie",
            session,
            "Content-Type",
            "text/plain",
            "Origin",
            "http://127.0.0.1:9999"),
        403,
        40306,
        "cluster's own pages");
    assertError(
        send("POST", v3("/acls"), null, acl, "Cookie", session, "Content-Type", "application/json"),
        403,
        40306,
        "cluster's own pages");
    assertThat(send("GET", v3("/acls?principal=User:csrf"), ADMIN, null).json().get("data"))
        .isEmpty();
    // From the broker's own page it works; reading needs no origin.
    assertThat(
            send(
                    "POST",
                    v3("/acls"),
                    null,
                    acl,
                    "Cookie",
                    session,
                    "Content-Type",
                    "application/json",
                    "Origin",
                    "http://127.0.0.1:" + port)
                .status)
        .isEqualTo(201);
    assertThat(send("GET", "/v3/whoami", null, null, "Cookie", session).status).isEqualTo(200);
  }

  @Test
  void committingOrReadingOffsetsOfATopicTakesReadOnIt() {
    String mine = "mine" + COUNTER.incrementAndGet();
    String theirs = "theirs" + COUNTER.incrementAndGet();
    String group = "og" + COUNTER.incrementAndGet();
    createTopic(mine);
    createTopic(theirs);
    Key alice = newKey("User:offsets-" + COUNTER.incrementAndGet());
    acl(alice.principal, "READ", "GROUP", "LITERAL", group);
    acl(alice.principal, "READ", "TOPIC", "LITERAL", mine);
    String v2 = "application/vnd.kafka.v2+json";
    Response created = send("POST", "/consumers/" + group, alice.token(), "{}", "Content-Type", v2);
    String instance =
        "/consumers/" + group + "/instances/" + created.json().get("instance_id").stringValue();
    assertError(
        send(
            "POST",
            instance + "/offsets",
            alice.token(),
            "{\"offsets\":[{\"topic\":\"" + theirs + "\",\"partition\":0,\"offset\":4}]}",
            "Content-Type",
            v2),
        403,
        40303,
        "READ topic '" + theirs + "'");
    assertError(
        send(
            "GET",
            instance + "/offsets",
            alice.token(),
            "{\"partitions\":[{\"topic\":\"" + theirs + "\",\"partition\":0}]}",
            "Content-Type",
            v2),
        403,
        40303,
        "READ topic '" + theirs + "'");
    assertThat(
            send(
                    "POST",
                    instance + "/offsets",
                    alice.token(),
                    "{\"offsets\":[{\"topic\":\"" + mine + "\",\"partition\":0,\"offset\":0}]}",
                    "Content-Type",
                    v2)
                .status)
        .as("the topic it may read passes the access check (what the group says next is not ours)")
        .isNotEqualTo(403);
    send("DELETE", instance, alice.token(), null);
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

  // ---- helpers

  private double denials(String reason) {
    Response r =
        send(
            "GET",
            "/actuator/metrics/tributary.security.denials?tag=reason:" + reason,
            ADMIN,
            null);
    if (r.status == 404) {
      return 0;
    }
    return r.json().get("measurements").get(0).get("value").asDouble();
  }

  private String upgrade(URI uri, String origin, String cookie) throws Exception {
    WebSocket.Builder builder = HttpClient.newHttpClient().newWebSocketBuilder();
    builder.header("Origin", origin);
    if (cookie != null) {
      builder.header("Cookie", cookie);
    }
    try {
      WebSocket socket =
          builder.buildAsync(uri, new WebSocket.Listener() {}).get(20, TimeUnit.SECONDS);
      socket.abort();
      return "open";
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof java.net.http.WebSocketHandshakeException h) {
        return "refused: " + h.getResponse().statusCode();
      }
      throw e;
    }
  }

  private Response signIn(String keyId, String secret) {
    String form = "key_id=" + url(keyId) + "&secret=" + url(secret);
    return send("POST", "/login", null, form, "Content-Type", "application/x-www-form-urlencoded");
  }

  private Key newKey(String principal) {
    Response r = postJson(v3("/api-keys"), "{\"principal\":\"" + principal + "\"}");
    assertThat(r.status).as(r.body).isEqualTo(201);
    JsonNode key = r.json();
    assertThat(key.get("token").stringValue())
        .isEqualTo(key.get("key_id").stringValue() + "." + key.get("secret").stringValue());
    return new Key(principal, key.get("key_id").stringValue(), key.get("secret").stringValue());
  }

  private void acl(String principal, String operation, String type, String pattern, String name) {
    Response r =
        postJson(
            v3("/acls"),
            "{\"principal\":\""
                + principal
                + "\",\"operation\":\""
                + operation
                + "\",\"resource_type\":\""
                + type
                + "\",\"pattern_type\":\""
                + pattern
                + "\",\"resource_name\":\""
                + name
                + "\"}");
    assertThat(r.status).as(r.body).isEqualTo(201);
  }

  private void createTopic(String name) {
    Response r =
        postJson(v3("/topics"), "{\"topic_name\":\"" + name + "\",\"partitions_count\":1}");
    assertThat(r.status).as(r.body).isEqualTo(201);
  }

  private Response postJson(String path, String body) {
    return send("POST", path, ADMIN, body, "Content-Type", "application/json");
  }

  private static String records() {
    return "{\"records\":[{\"value\":{\"n\":1}}]}";
  }

  private String v3(String suffix) {
    return "/v3/clusters/" + clusterId + suffix;
  }

  private static String url(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.stringValue()));
    return out;
  }

  private Response send(String method, String path, String token, String body, String... headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    boolean contentType = false;
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
      contentType |= headers[i].equalsIgnoreCase("Content-Type");
    }
    if (body != null && !contentType) {
      b.header("Content-Type", "application/vnd.kafka.json.v2+json");
    }
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    try {
      HttpResponse<String> r = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Response(r.statusCode(), r.body(), r.headers());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CompletionException(e);
    }
  }

  private static void assertError(Response r, int status, int code, String fragment) {
    assertThat(r.status).as(r.body).isEqualTo(status);
    JsonNode json = r.json();
    assertThat(json.get("error_code").asInt()).as(r.body).isEqualTo(code);
    assertThat(json.get("message").stringValue()).contains(fragment);
  }

  private static Path freshDataDir() {
    // In the build directory, next to test-classes, so a clean build removes it.
    try {
      Path testClasses =
          Path.of(
              SecurityApiTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path parent = Files.createDirectories(testClasses.getParent().resolve("security-test-data"));
      return Files.createTempDirectory(parent, "broker-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private record Key(String principal, String id, String secret) {
    String token() {
      return id + "." + secret;
    }
  }

  private record Response(int status, String body, java.net.http.HttpHeaders headers) {
    JsonNode json() {
      return JSON.readTree(body);
    }
  }
}
