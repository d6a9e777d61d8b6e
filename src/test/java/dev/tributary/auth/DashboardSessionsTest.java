package dev.tributary.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.ManualClock;
import dev.tributary.security.ApiKey;
import dev.tributary.security.ApiKeySecrets;
import org.junit.jupiter.api.Test;

class DashboardSessionsTest {
  private final ManualClock clock = new ManualClock();
  private final DashboardSessions sessions = new DashboardSessions("cluster-secret", clock, 60_000);
  private final ApiKey key = new ApiKey("admin", "User:admin", ApiKeySecrets.sha256("old"), "", 0);

  @Test
  void aSessionHoldsForItsKeyUntilItExpires() {
    String token = sessions.issue(key);
    assertThat(sessions.verify(token)).hasValueSatisfying(s -> assertThat(s.isFor(key)).isTrue());
    clock.advance(60_000);
    assertThat(sessions.verify(token)).isEmpty();
  }

  @Test
  void aNewSecretForTheSameKeyIdEndsItsSessions() {
    String token = sessions.issue(key);
    ApiKey rotated = new ApiKey("admin", "User:admin", ApiKeySecrets.sha256("new"), "", 0);
    assertThat(sessions.verify(token))
        .hasValueSatisfying(s -> assertThat(s.isFor(rotated)).isFalse());
  }

  @Test
  void aTamperedOrForeignTokenIsNobody() {
    String token = sessions.issue(key);
    assertThat(sessions.verify(token.substring(0, token.length() - 2) + "xx")).isEmpty();
    DashboardSessions other = new DashboardSessions("another-cluster", clock, 60_000);
    assertThat(other.verify(token)).isEmpty();
    assertThat(sessions.verify("garbage")).isEmpty();
    assertThat(sessions.verify(null)).isEmpty();
  }
}
