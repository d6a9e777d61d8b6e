package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The balancer's resource on one broker: a single broker is balanced by definition, so the plan is
 * empty and an execution is done at once; and every refusal. Moves between brokers are in {@code
 * ReassignmentIT}.
 */
class BalanceV3ApiTest extends ApiTestSupport {

  @Test
  void oneBrokerIsBalancedAndAnExecutionFinishesAtOnce() {
    createTopic(newTopicName(), 2);

    JsonNode plan = expectOk(get(v3("/balance")));
    assertThat(plan.get("kind").stringValue()).isEqualTo("TributaryBalance");
    assertThat(plan.get("balanced").booleanValue()).isTrue();
    assertThat(plan.get("moves")).isEmpty();
    assertThat(plan.get("text").stringValue()).isNotBlank();
    assertThat(plan.get("brokers").get(0).get("broker_id").intValue()).isEqualTo(1);

    Response started = post(v3("/balance"), JSON, "{\"max_concurrent_moves\":3}");
    assertThat(started.status()).as(started.body()).isEqualTo(202);
    assertThat(started.json().get("execution").get("moves_total").intValue()).isZero();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                expectOk(get(v3("/balance")))
                    .get("execution")
                    .get("state")
                    .stringValue()
                    .equals("done"));
  }

  @Test
  void excludingTheOnlyBrokerLeavesItsPartitionsSkippedWithWhy() {
    createTopic(newTopicName(), 1);

    JsonNode plan = expectOk(get(v3("/balance?exclude=1")));

    assertThat(plan.get("moves")).isEmpty();
    assertThat(plan.get("skipped")).isNotEmpty();
    assertThat(plan.get("skipped").get(0).get("reason").stringValue()).isNotBlank();
  }

  @Test
  void stoppingWhenNoBalanceRunsIsNotFound() {
    assertError(delete(v3("/balance")), 404, 40412, "No balance is running on broker 1");
  }

  @Test
  void badRequestsAreRefusedAndStartNothing() {
    assertError(get(v3("/balance?exclude=x")), 400, 40002, "comma-separated list of broker ids");
    assertError(get(v3("/balance?exclude=7")), 400, 40002, "Broker 7 is not registered");
    assertError(post(v3("/balance"), JSON, "{\"exclude\":\"1\"}"), 400, 40002, "list of broker");
    assertError(post(v3("/balance"), JSON, "{\"exclude\":[-1]}"), 400, 40002, "broker ids");
    assertError(
        post(v3("/balance"), JSON, "{\"max_concurrent_moves\":0}"),
        400,
        40002,
        "between 1 and 100");
    assertError(
        post(v3("/balance"), JSON, "{\"max_concurrent_moves\":\"a\"}"), 400, 40002, "integer");
  }
}
