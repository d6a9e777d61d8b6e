package dev.tributary.auth;

import dev.tributary.common.Time;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Dashboard sign-ins as a signed cookie, {@code <base64url(keyId|expiresMs)>.<base64url(hmac)>},
 * HMAC-SHA256 under a key derived from the cluster secret. Every broker can check it, so a page
 * that moves its socket to another broker when the first dies stays signed in, and no broker keeps
 * session state. The cookie carries no secret: the key's current principal is looked up on each
 * request, and deleting the key ends its sessions.
 */
final class DashboardSessions {
  static final String COOKIE = "tributary_session";
  private final byte[] key;
  private final Time time;
  private final long lifetimeMs;

  /**
   * @param signingSecret the cluster secret (or a random per-process one for a broker without)
   */
  DashboardSessions(String signingSecret, Time time, long lifetimeMs) {
    this.key = hmac(signingSecret.getBytes(StandardCharsets.UTF_8), "tributary-dashboard-session");
    this.time = time;
    this.lifetimeMs = lifetimeMs;
  }

  long lifetimeMs() {
    return lifetimeMs;
  }

  String issue(String keyId) {
    String payload = keyId + "|" + (time.milliseconds() + lifetimeMs);
    byte[] payloadBytes = payload.getBytes(StandardCharsets.UTF_8);
    return base64(payloadBytes) + "." + base64(hmac(key, payload));
  }

  /** The key id a valid, unexpired token was issued for. */
  Optional<String> verify(String token) {
    if (token == null || token.length() > 512) {
      return Optional.empty();
    }
    int dot = token.indexOf('.');
    if (dot <= 0) {
      return Optional.empty();
    }
    try {
      String payload =
          new String(
              Base64.getUrlDecoder().decode(token.substring(0, dot)), StandardCharsets.UTF_8);
      byte[] mac = Base64.getUrlDecoder().decode(token.substring(dot + 1));
      if (!MessageDigest.isEqual(mac, hmac(key, payload))) {
        return Optional.empty();
      }
      int bar = payload.lastIndexOf('|');
      long expiresMs = Long.parseLong(payload.substring(bar + 1));
      return expiresMs > time.milliseconds()
          ? Optional.of(payload.substring(0, bar))
          : Optional.empty();
    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
      return Optional.empty();
    }
  }

  private static String base64(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static byte[] hmac(byte[] key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK has HmacSHA256", e);
    }
  }
}
