package dev.tributary.auth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Consumers on a broker with security on: an instance needs READ on its group and on each topic it
 * subscribes to, commits or reads offsets of, and is kept to the principal that created it.
 */
class ConsumerSecurityApiTest extends SecuredBrokerTestSupport {
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
    acl(alice.principal(), "READ", "GROUP", "LITERAL", group);
    acl(bob.principal(), "READ", "GROUP", "LITERAL", group);
    Response created = send("POST", "/consumers/" + group, alice.token(), "{}", "Content-Type", v2);
    assertThat(created.status()).isEqualTo(200);
    String instance =
        "/consumers/" + group + "/instances/" + created.json().get("instance_id").stringValue();
    String subscribe = "{\"topics\":[\"" + topic + "\"]}";
    assertError(
        send("POST", instance + "/subscription", alice.token(), subscribe, "Content-Type", v2),
        403,
        40303,
        "READ topic '" + topic + "'");
    acl(alice.principal(), "READ", "TOPIC", "LITERAL", topic);
    assertThat(
            send("POST", instance + "/subscription", alice.token(), subscribe, "Content-Type", v2)
                .status())
        .isEqualTo(204);
    // Bob may use the group, but not Alice's instance.
    assertError(
        send("GET", instance + "/subscription", bob.token(), null), 404, 40403, "not found");
    assertError(send("DELETE", instance, bob.token(), null), 404, 40403, "not found");
    assertThat(send("DELETE", instance, alice.token(), null).status()).isEqualTo(204);
  }

  @Test
  void committingOrReadingOffsetsOfATopicTakesReadOnIt() {
    String mine = "mine" + COUNTER.incrementAndGet();
    String theirs = "theirs" + COUNTER.incrementAndGet();
    String group = "og" + COUNTER.incrementAndGet();
    createTopic(mine);
    createTopic(theirs);
    Key alice = newKey("User:offsets-" + COUNTER.incrementAndGet());
    acl(alice.principal(), "READ", "GROUP", "LITERAL", group);
    acl(alice.principal(), "READ", "TOPIC", "LITERAL", mine);
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
                .status())
        .as("the topic it may read passes the access check (what the group says next is not ours)")
        .isNotEqualTo(403);
    send("DELETE", instance, alice.token(), null);
  }
}
