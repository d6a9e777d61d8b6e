package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * REST Proxy v2's consumer API and the v3 consumer-group views on one broker, over real HTTP: the
 * whole flow a tutorial runs, and every bad request answered with its error and changing nothing.
 */
class ConsumersApiTest extends ApiTestSupport {
  private static final String CREATE_JSON =
      "{\"name\":\"c1\",\"format\":\"json\",\"auto.offset.reset\":\"earliest\",\"auto.commit.enable\":\"false\"}";

  private String group() {
    return "g-" + newTopicName();
  }

  private static String base(String group, String instance) {
    return "/consumers/" + group + "/instances/" + instance;
  }

  /** Reads until {@code count} records came back (the first read may wait for the group's join). */
  private List<JsonNode> readAtLeast(String group, String instance, int count) {
    List<JsonNode> got = new ArrayList<>();
    for (int attempt = 0; attempt < 20 && got.size() < count; attempt++) {
      Response r = get(base(group, instance) + "/records?timeout=3000", "Accept", EMBEDDED_JSON);
      assertThat(r.status()).as(r.body()).isEqualTo(200);
      assertThat(r.contentType()).startsWith(EMBEDDED_JSON);
      r.json().forEach(got::add);
    }
    return got;
  }

  @Test
  void aConsumerSubscribesReadsCommitsShowsUpInTheGroupViewsAndIsDeleted() {
    String topic = newTopicName();
    createTopic(topic, 2);
    produceJson(
        topic,
        "{\"records\":[{\"key\":\"a\",\"value\":1},{\"key\":\"b\",\"value\":2},"
            + "{\"key\":\"c\",\"value\":3},{\"key\":\"d\",\"value\":4}]}");
    String g = group();

    Response created = post("/consumers/" + g, V2_JSON, CREATE_JSON);
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    assertThat(created.contentType()).startsWith(V2_JSON);
    assertThat(created.json().get("instance_id").stringValue()).isEqualTo("c1");
    assertThat(created.json().get("base_uri").stringValue()).isEqualTo(baseUrl() + base(g, "c1"));
    Response subscribed =
        post(base(g, "c1") + "/subscription", V2_JSON, "{\"topics\":[\"" + topic + "\"]}");
    assertThat(subscribed.status()).as(subscribed.body()).isEqualTo(204);
    assertThat(get(base(g, "c1") + "/subscription").json().get("topics").get(0).stringValue())
        .isEqualTo(topic);

    List<JsonNode> records = readAtLeast(g, "c1", 4);
    assertThat(records)
        .extracting(r -> r.get("value").intValue())
        .containsExactlyInAnyOrder(1, 2, 3, 4);
    assertThat(get(base(g, "c1") + "/assignments").json().get("partitions")).hasSize(2);

    assertThat(post(base(g, "c1") + "/offsets", V2_JSON, "").status()).isEqualTo(200);
    JsonNode committed =
        mapper.readTree(
            send(
                    "GET",
                    base(g, "c1") + "/offsets",
                    "{\"partitions\":[{\"topic\":\""
                        + topic
                        + "\",\"partition\":0},{\"topic\":\""
                        + topic
                        + "\",\"partition\":1}]}")
                .body());
    long total = 0;
    for (JsonNode o : committed.get("offsets")) {
      total += o.get("offset").longValue();
    }
    assertThat(total)
        .as("committed offsets of both partitions add up to the 4 records")
        .isEqualTo(4);

    JsonNode view = expectOk(get(v3("/consumer-groups/" + g)));
    assertThat(view.get("state").stringValue()).isEqualTo("STABLE");
    assertThat(view.get("generation_id").intValue()).isPositive();
    assertThat(view.get("partition_assignor").stringValue()).isEqualTo("range");
    JsonNode consumers = expectOk(get(v3("/consumer-groups/" + g + "/consumers"))).get("data");
    assertThat(consumers).hasSize(1);
    assertThat(consumers.get(0).get("client_id").stringValue()).isEqualTo("c1");
    JsonNode lags = expectOk(get(v3("/consumer-groups/" + g + "/lags"))).get("data");
    assertThat(lags).hasSize(2).allSatisfy(l -> assertThat(l.get("lag").longValue()).isZero());
    assertThat(
            expectOk(get(v3("/consumer-groups/" + g + "/lag-summary")))
                .get("total_lag")
                .longValue())
        .isZero();
    assertThat(expectOk(get(v3("/consumer-groups"))).get("data"))
        .anySatisfy(x -> assertThat(x.get("consumer_group_id").stringValue()).isEqualTo(g));

    assertThat(delete(base(g, "c1")).status()).isEqualTo(204);
    assertError(get(base(g, "c1") + "/records", "Accept", EMBEDDED_JSON), 404, 40403, "not found");
  }

  @Test
  void badRequestsGetTheirErrorAndChangeNothing() {
    String topic = newTopicName();
    createTopic(topic, 1);
    produceJson(topic, "{\"records\":[{\"value\":1},{\"value\":2}]}");
    String g = group();
    assertError(
        post("/consumers/" + g, V2_JSON, "{\"name\":\"x\",\"colour\":\"red\"}"),
        422,
        42202,
        "Unknown consumer config 'colour'");
    assertError(
        post("/consumers/" + g, V2_JSON, "{\"name\":\"x\",\"format\":\"avro\"}"),
        422,
        42202,
        "format");
    assertError(
        post("/consumers/" + g, V2_JSON, "{\"name\":\"x\",\"session.timeout.ms\":\"10\"}"),
        422,
        42202,
        "session.timeout.ms");
    assertError(
        post("/consumers/" + g, V2_JSON, "{\"name\":\"x\",\"session.timeout.ms\":4294973296}"),
        422,
        42202,
        "32 bits");
    assertThat(post("/consumers/" + g, V2_JSON, CREATE_JSON).status()).isEqualTo(200);
    assertError(post("/consumers/" + g, V2_JSON, CREATE_JSON), 409, 40902, "already exists");

    assertError(get(base(g, "nobody") + "/records"), 404, 40403, "not found");
    assertError(
        get(base(g, "c1") + "/records", "Accept", EMBEDDED_JSON), 409, 40903, "not subscribed");
    assertThat(
            post(
                    base(g, "c1") + "/assignments",
                    V2_JSON,
                    "{\"partitions\":[{\"topic\":\"" + topic + "\",\"partition\":0}]}")
                .status())
        .isEqualTo(204);
    assertError(
        post(base(g, "c1") + "/subscription", V2_JSON, "{\"topics\":[\"" + topic + "\"]}"),
        409,
        40903,
        "mutually exclusive");
    assertError(get(base(g, "c1") + "/records", "Accept", EMBEDDED_BINARY), 406, 40601, "format");
    assertError(
        post(
            base(g, "c1") + "/positions",
            V2_JSON,
            "{\"offsets\":[{\"topic\":\"" + topic + "\",\"partition\":5,\"offset\":0}]}"),
        409,
        40903,
        "No current assignment");
    assertError(
        post(base(g, "c1") + "/subscription", V2_JSON, "{\"topics\":"),
        400,
        40001,
        "Malformed JSON body");

    assertThat(readAtLeast(g, "c1", 2)).hasSize(2);
    assertError(
        post(base(g, "c1") + "/offsets", V2_JSON, "{\"offsets\":\"everything\"}"),
        400,
        40002,
        "offsets");
    assertError(
        post(base(g, "c1") + "/offsets", V2_JSON, "{\"offsetz\":[]}"), 400, 40002, "Unknown field");
    assertError(
        post(
            base(g, "c1") + "/offsets",
            V2_JSON,
            "{\"offsets\":[{\"topic\":\""
                + topic
                + "\",\"partition\":0,\"offset\":9223372036854775807}]}"),
        400,
        40002,
        "offset");
    JsonNode committed =
        mapper.readTree(
            send(
                    "GET",
                    base(g, "c1") + "/offsets",
                    "{\"partitions\":[{\"topic\":\"" + topic + "\",\"partition\":0}]}")
                .body());
    assertThat(committed.get("offsets").get(0).get("offset").longValue())
        .as("none of the refused commits committed anything")
        .isEqualTo(-1);
  }

  @Test
  void aRecordThatIsNotJsonStopsAJsonConsumerThereWithoutSkippingIt() {
    String topic = newTopicName();
    createTopic(topic, 1);
    produceJson(topic, "{\"records\":[{\"value\":1}]}");
    produceBinary(topic, "{\"records\":[{\"value\":\"bm90IGpzb24=\"}]}"); // "not json"
    produceJson(topic, "{\"records\":[{\"value\":3}]}");
    String g = group();
    assertThat(post("/consumers/" + g, V2_JSON, CREATE_JSON).status()).isEqualTo(200);
    assertThat(
            post(
                    base(g, "c1") + "/assignments",
                    V2_JSON,
                    "{\"partitions\":[{\"topic\":\"" + topic + "\",\"partition\":0}]}")
                .status())
        .isEqualTo(204);

    JsonNode first =
        expectOk(get(base(g, "c1") + "/records?timeout=2000", "Accept", EMBEDDED_JSON));
    assertThat(first).extracting(r -> r.get("offset").longValue()).containsExactly(0L);
    assertError(get(base(g, "c1") + "/records", "Accept", EMBEDDED_JSON), 406, 40601, "offset 1");
    assertError(get(base(g, "c1") + "/records", "Accept", EMBEDDED_JSON), 406, 40601, "offset 1");

    assertThat(
            post(
                    base(g, "c1") + "/positions",
                    V2_JSON,
                    "{\"offsets\":[{\"topic\":\"" + topic + "\",\"partition\":0,\"offset\":2}]}")
                .status())
        .isEqualTo(204);
    JsonNode after =
        expectOk(get(base(g, "c1") + "/records?timeout=2000", "Accept", EMBEDDED_JSON));
    assertThat(after).extracting(r -> r.get("value").intValue()).containsExactly(3);
  }

  private Response send(String method, String path, String body) {
    return sendWithBody(method, path, V2_JSON, body);
  }
}
