package dev.tributary.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.security.Principals;
import dev.tributary.server.RequestContext;
import dev.tributary.transport.http.InternalApi;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;

/** A request's context: from a broker only with the right cluster secret, or when proven so. */
class RequestContextsTest {
  private final RequestContexts contexts = new RequestContexts(() -> "the-cluster-secret");

  private static MockHttpServletRequest request(String secret) {
    MockHttpServletRequest request = new MockHttpServletRequest("POST", "/anything");
    request.setRemoteAddr("10.0.0.7");
    if (secret != null) {
      request.addHeader(InternalApi.SECRET_HEADER, secret);
    }
    return request;
  }

  @Test
  void onlyTheRightClusterSecretMakesARequestABrokers() {
    assertThat(contexts.of(request("the-cluster-secret")))
        .isEqualTo(new RequestContext(Principals.ANONYMOUS, "10.0.0.7", true));
    assertThat(contexts.of(request("wrong")).fromBroker()).isFalse();
    assertThat(contexts.of(request(null)).fromBroker()).isFalse();
  }

  @Test
  void aRequestProvenToComeFromABrokerIsOneWithoutTheSecretComparedAgain() {
    MockHttpServletRequest request = request(null); // what it carried was compared by the caller
    request.setAttribute(RequestPrincipal.ATTRIBUTE, "User:alice");
    assertThat(RequestContexts.ofProvenBroker(request))
        .isEqualTo(new RequestContext("User:alice", "10.0.0.7", true));
  }
}
