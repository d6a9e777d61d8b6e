package dev.tributary.api;

import static dev.tributary.fuzz.HostileRequests.abbreviate;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.fuzz.HostileRequests;
import dev.tributary.fuzz.HostileRequests.Request;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A seeded fuzz of the public API on one broker ({@link HostileRequests}): random and mutated JSON
 * bodies, content types (form bodies too), query strings and path segments (escapes that do not
 * decode among them), empty and large bodies, at every endpoint; then every query parameter the API
 * reads, and the partition in the path, given escapes that do not decode and numbers out of range.
 * Every answer must be below 500 (or a documented 503) with the API's JSON error shape for every
 * error, never a stack trace; the broker must stay ready; and a refused produce must leave the
 * target partition's log unchanged. A failure names the seed and the request; {@code
 * -Dtributary.seed=N} replays one seed. The same requests go to a whole cluster while its links are
 * cut in {@code e2e.HostsClusterIT}'s soak.
 */
class HostileInputFuzzTest extends ApiTestSupport {
  private static final int REQUESTS_PER_SEED = 250;
  private static final int PARAMETER_REQUESTS_PER_SEED = 100;

  @Test
  void noRequestCrashesTheBrokerOrAnswersWithoutTheErrorShape() {
    long only = Long.getLong("tributary.seed", -1L);
    long[] seeds = only >= 0 ? new long[] {only} : new long[] {1, 2, 3, 4, 5, 6};
    String target = newTopicName();
    createTopic(target, 1);
    produceJson(target, "{\"records\":[{\"value\":1}]}");
    String group = "fuzz-" + target;
    assertThat(
            post("/consumers/" + group, V2_JSON, "{\"name\":\"c\",\"format\":\"json\"}").status())
        .isEqualTo(200);
    HostileRequests.Names names = new HostileRequests.Names(target, group, clusterId(), false);
    for (long seed : seeds) {
      HostileRequests requests = new HostileRequests(seed, names);
      for (int i = 0; i < REQUESTS_PER_SEED; i++) {
        Request request = requests.next();
        long logEndBefore = logEnd(target);
        Response r;
        try {
          r =
              sendWithBody(
                  request.method(),
                  request.target(),
                  request.contentType(),
                  request.body(),
                  request.accept());
        } catch (RuntimeException e) {
          throw new AssertionError(
              "seed " + seed + " request " + i + ": " + request + " failed: " + e, e);
        }
        check("seed " + seed + " request " + i, request, r, target, logEndBefore);
      }
      // Raw: java.net.URI refuses some of these targets ('%zz', a bare '%').
      for (int i = 0; i < PARAMETER_REQUESTS_PER_SEED; i++) {
        Request request = requests.nextOnParameters();
        long logEndBefore = logEnd(target);
        Response r;
        try {
          r =
              RawHttp.send(
                  "127.0.0.1",
                  port,
                  request.method(),
                  request.target(),
                  request.contentType().isEmpty() ? null : request.contentType(),
                  request.body().isEmpty() ? null : request.body(),
                  request.accept().isEmpty()
                      ? new String[0]
                      : new String[] {"Accept", request.accept()});
        } catch (RuntimeException e) {
          throw new AssertionError(
              "seed " + seed + " parameter request " + i + ": " + request + " failed: " + e, e);
        }
        check("seed " + seed + " parameter request " + i, request, r, target, logEndBefore);
      }
      assertThat(get("/actuator/health/readiness").status())
          .as("broker ready after seed " + seed)
          .isEqualTo(200);
    }
  }

  private void check(String which, Request request, Response r, String target, long logEndBefore) {
    String what = which + ": " + request + " → " + r.status() + " " + abbreviate(r.body());
    boolean documentedUnavailable =
        r.status() == 503 && r.body().contains("\"error_code\":50310"); // coordinator moving
    if (!documentedUnavailable) {
      assertThat(r.status()).as(what).isLessThan(500);
    }
    if (r.status() >= 400 && !r.contentType().startsWith("text/html")) {
      JsonNode error = r.json();
      assertThat(error.has("error_code") && error.has("message")).as(what).isTrue();
      assertThat(error.get("error_code").intValue() / 100).as(what).isEqualTo(r.status());
    }
    assertThat(r.body()).as(what).doesNotContain("\tat ").doesNotContain("Exception:");
    if (r.status() >= 400 && request.producesTo(target)) {
      assertThat(logEnd(target)).as(what + " (a refused produce appended)").isEqualTo(logEndBefore);
    }
  }

  private long logEnd(String topic) {
    return offsets(topic, 0).get("log_end_offset").longValue();
  }
}
