package dev.tributary.auth;

import static dev.tributary.api.HostileEncodings.FORM;
import static dev.tributary.api.HostileEncodings.assertEachRefusedQuietly;
import static dev.tributary.api.HostileEncodings.inFormBody;
import static dev.tributary.api.HostileEncodings.inPath;
import static dev.tributary.api.HostileEncodings.inQuery;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.api.HostileEncodings;
import dev.tributary.api.HostileEncodings.Answer;
import dev.tributary.api.HostileEncodings.Hostile;
import dev.tributary.transport.http.InternalApi;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code api.HostileEncodingApiTest} on a broker with security on: a request that does not decode
 * is 400 40007 whoever sends it — anonymous (not 401: the check comes before authentication, which
 * could otherwise be what reads the parameters), with an API key, and at internal endpoints with
 * and without the cluster secret — and leaves no stack trace in the log. It runs on the broker the
 * other access-control tests share ({@link SecuredBrokerTestSupport}): a second secured broker with
 * a context of its own would pause theirs whenever the test order put it between them.
 */
class HostileEncodingSecuredApiTest extends SecuredBrokerTestSupport {
  private static final String[] ADMIN_HEADERS = {"Authorization", "Bearer " + ADMIN};
  private static final String[] BROKER_HEADERS = {InternalApi.SECRET_HEADER, CLUSTER_SECRET};

  @Test
  void anonymousRequestsThatDoNotDecodeAre400NotA401() {
    assertEachRefusedQuietly(port, everyFamily());
  }

  @Test
  void requestsWithAnApiKeyThatDoNotDecodeAre400() {
    assertEachRefusedQuietly(port, everyFamily(ADMIN_HEADERS));
  }

  @Test
  void internalRequestsThatDoNotDecodeAre400WithOrWithoutTheClusterSecret() {
    List<Hostile> requests = new ArrayList<>();
    for (String[] headers : List.of(BROKER_HEADERS, new String[0])) {
      requests.addAll(inQuery("GET", "/internal/v1/consumer/fetch", null, null, headers));
      requests.addAll(
          inQuery("POST", "/internal/v1/replica/fetch", "application/json", "{}", headers));
      requests.addAll(inFormBody("/internal/v1/groups/join", headers));
      requests.addAll(inPath("POST", "/internal/v1/", "/fetch", headers));
    }
    assertEachRefusedQuietly(port, requests);
  }

  @Test
  void wellEncodedTextIsStillAskedForCredentialsAndServedWithThem() {
    String query = "?offset=0&x=%E2%82%AC%F0%9F%92%A9";
    assertThat(raw("GET", "/topics" + query, null, null).status()).isEqualTo(401);
    assertThat(raw("GET", "/topics" + query, null, null, ADMIN_HEADERS).status()).isEqualTo(200);
    Answer login = raw("POST", "/login", FORM, "key_id=admin&secret=%E2%82%AC");
    assertThat(login.status()).as(login.body()).isNotEqualTo(400).isLessThan(500);
  }

  /** The query, form and path cases at one endpoint of every family, with {@code headers}. */
  private List<Hostile> everyFamily(String... headers) {
    String cluster = v3("");
    List<Hostile> requests = new ArrayList<>();
    for (String path :
        List.of(
            "/topics",
            "/topics/t/partitions/0/records",
            cluster + "/topics",
            cluster + "/acls",
            cluster + "/consumer-groups/g/lags",
            "/consumers/g/instances/c/records",
            "/actuator/health",
            "/actuator/prometheus",
            "/dashboard/state",
            "/",
            "/login",
            "/v3/whoami")) {
      requests.addAll(inQuery("GET", path, null, null, headers));
    }
    String records = "{\"records\":[{\"value\":1}]}";
    requests.addAll(
        inQuery("POST", "/topics/t", "application/vnd.kafka.json.v2+json", records, headers));
    requests.addAll(inQuery("POST", "/login", FORM, "key_id=a&secret=b", headers));
    requests.addAll(inFormBody("/login", headers));
    requests.addAll(inFormBody("/topics/t", headers));
    requests.addAll(inFormBody("/dashboard/actions/brokers/1/pause-fetching", headers));
    requests.addAll(inPath("GET", "/topics/", "/partitions/0/records", headers));
    requests.addAll(inPath("GET", cluster + "/topics/", "", headers));
    requests.addAll(inPath("GET", "/actuator/", "", headers));
    return requests;
  }

  /** A request as written, {@code target} not encoded again. */
  private Answer raw(
      String method, String target, String contentType, String body, String... headers) {
    return HostileEncodings.send(port, method, target, contentType, body, headers);
  }
}
