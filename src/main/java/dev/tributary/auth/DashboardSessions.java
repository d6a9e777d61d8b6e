package dev.tributary.auth;

import dev.tributary.common.Time;
import dev.tributary.security.ApiKey;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Dashboard sign-ins as a signed cookie, {@code
 * <base64url(keyId|secretFingerprint|expiresMs)>.<base64url(hmac)>}, HMAC-SHA256 under a key
 * derived from the cluster secret. Every broker can check it, so a page that moves its socket to
 * another broker when the first dies stays signed in, and no broker keeps session state. The cookie
 * carries no secret: the key's current principal is looked up on each request; deleting the key, or
 * giving its id a new secret (rotating the bootstrap key), ends its sessions, since the fingerprint
 * of the stored hash no longer matches. Signing out clears the cookie in that browser only: a
 * copied cookie lasts until it expires or its key is deleted.
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

  String issue(ApiKey apiKey) {
    String payload =
        apiKey.keyId() + "|" + fingerprintOf(apiKey) + "|" + (time.milliseconds() + lifetimeMs);
    byte[] payloadBytes = payload.getBytes(StandardCharsets.UTF_8);
    return base64(payloadBytes) + "." + base64(hmac(key, payload));
  }

  /** A sign-in: the key it was made with, and the fingerprint of that key's secret hash then. */
  record Session(String keyId, String fingerprint) {
    /** True if {@code current} is the key this session was made with (same id, same secret). */
    boolean isFor(ApiKey current) {
      return current.keyId().equals(keyId)
          && MessageDigest.isEqual(
              fingerprintOf(current).getBytes(StandardCharsets.UTF_8),
              fingerprint.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** A short, one-way tag of the key's stored hash: changes when the key gets a new secret. */
  static String fingerprintOf(ApiKey apiKey) {
    return base64(hmac(apiKey.secretSha256().getBytes(StandardCharsets.UTF_8), "session"))
        .substring(0, 16);
  }

  /** The session a valid, unexpired token holds. */
  Optional<Session> verify(String token) {
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
      String[] parts = payload.split("\\|", -1);
      if (parts.length != 3) {
        return Optional.empty();
      }
      long expiresMs = Long.parseLong(parts[2]);
      return expiresMs > time.milliseconds()
          ? Optional.of(new Session(parts[0], parts[1]))
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
