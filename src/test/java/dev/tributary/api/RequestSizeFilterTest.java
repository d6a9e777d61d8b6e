package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.BrokerConfig;
import dev.tributary.transport.http.InternalApi;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

/**
 * The cap on a request body, as {@link RequestSizeFilter} applies it and as {@link
 * InternalReplicaFilter} (ahead of it, for replica fetches) applies it too: the same 413 41302.
 * {@code RequestLimitsApiTest} sends such bodies over HTTP.
 */
class RequestSizeFilterTest {
  private static final long CAP = 16;
  private static final String SECRET = "the-cluster-secret";
  private static final String OVER_THE_CAP =
      "{\"error_code\":41302,\"message\":\"The request body has 17 bytes, more than"
          + " tributary.max-request-bytes=16; send fewer records per request\"}";

  private static MockHttpServletRequest post(String path, String contentType, int bodyBytes) {
    MockHttpServletRequest request = new MockHttpServletRequest("POST", path);
    request.setContentType(contentType);
    request.setContent(new byte[bodyBytes]);
    request.addHeader(InternalApi.SECRET_HEADER, SECRET);
    return request;
  }

  private final MockHttpServletResponse response = new MockHttpServletResponse();
  private final MockFilterChain chain = new MockFilterChain();

  private void assertRefusedAsOverTheCap() throws Exception {
    assertThat(chain.getRequest()).as("answered, not passed on").isNull();
    assertThat(response.getStatus()).isEqualTo(413);
    assertThat(response.getHeader("Connection")).isEqualTo("close");
    assertThat(response.getContentAsString()).isEqualTo(OVER_THE_CAP);
  }

  @Test
  void aBodyOverTheCapIsRefusedWithItsSize() throws Exception {
    new RequestSizeFilter(CAP).doFilter(post("/topics/t", "application/json", 17), response, chain);
    assertRefusedAsOverTheCap();
  }

  @Test
  void aBodyAtTheCapIsPassedOn() throws Exception {
    new RequestSizeFilter(CAP).doFilter(post("/topics/t", "application/json", 16), response, chain);
    assertThat(chain.getRequest()).isNotNull();
    assertThat(response.getStatus()).isEqualTo(200);
  }

  @Test
  void aBodyWithoutADeclaredLengthThatRunsPastTheCapFailsWithoutASize() {
    assertThat(new RequestSizeFilter.RequestTooLargeException(CAP).getMessage())
        .isEqualTo(
            "The request body is larger than tributary.max-request-bytes=16;"
                + " send fewer records per request");
  }

  @Test
  void aReplicaFetchOverTheCapGetsTheSameAnswerAndFetchesNothing() throws Exception {
    BrokerConfig config =
        new BrokerConfig(
            1,
            Path.of("unused"),
            "localhost",
            1,
            false,
            1,
            1,
            1_000,
            1_000,
            "c",
            SECRET,
            "",
            "",
            500,
            3_000);
    // No fetch service: a fetch attempted would fail the test.
    InternalReplicaFilter replicaFilter =
        new InternalReplicaFilter(null, config, JsonMapper.builder().build(), CAP);
    replicaFilter.doFilter(
        post(InternalApi.REPLICA_FETCH, InternalApi.REPLICA_MEDIA_TYPE, 17), response, chain);
    assertRefusedAsOverTheCap();
  }
}
