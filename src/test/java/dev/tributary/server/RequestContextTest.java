package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.security.Principals;
import org.junit.jupiter.api.Test;

/** {@link RequestContext}: who a request is from, and whom its limits count against. */
class RequestContextTest {
  @Test
  void aMissingOrBlankPrincipalIsAnonymous() {
    assertThat(new RequestContext(null, "10.0.0.1", false).principal())
        .isEqualTo(Principals.ANONYMOUS);
    assertThat(new RequestContext("  ", "10.0.0.1", false).principal())
        .isEqualTo(Principals.ANONYMOUS);
  }

  @Test
  void anAnonymousClientCountsAgainstItsAddressAndAnAuthenticatedOneAgainstItsPrincipal() {
    assertThat(new RequestContext(null, "10.0.0.1", false).clientIdentity())
        .isEqualTo("Anonymous:10.0.0.1");
    assertThat(new RequestContext(null, "10.0.0.2", false).clientIdentity())
        .isNotEqualTo(new RequestContext(null, "10.0.0.1", false).clientIdentity());
    assertThat(new RequestContext("User:alice", "10.0.0.1", false).clientIdentity())
        .isEqualTo("User:alice");
    assertThat(new RequestContext("User:alice", "10.0.0.2", true).clientIdentity())
        .isEqualTo("User:alice");
  }

  @Test
  void theBrokerItselfIsATrustedBrokerPrincipal() {
    assertThat(RequestContext.INTERNAL.fromBroker()).isTrue();
    assertThat(RequestContext.INTERNAL.principal()).isEqualTo(Principals.BROKER);
  }
}
