package dev.tributary.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Random;

/**
 * Making and checking API key secrets. A secret is 32 random bytes, so one unsalted SHA-256 is
 * enough to store it (nobody can guess 256 bits; a slow password hash such as bcrypt protects
 * low-entropy passwords, and would cost every request milliseconds): see docs/adr/0014.
 */
public final class ApiKeySecrets {
  private static final int SECRET_BYTES = 32;
  private static final int KEY_ID_BYTES = 9;

  private ApiKeySecrets() {}

  /** A new secret from {@code random} (a SecureRandom in production): 43 base64url characters. */
  public static String newSecret(Random random) {
    return base64Url(random, SECRET_BYTES);
  }

  /** A new key id from {@code random}: 12 base64url characters. */
  public static String newKeyId(Random random) {
    return base64Url(random, KEY_ID_BYTES);
  }

  /** The stored form of {@code secret}: its SHA-256 in lowercase hex. */
  public static String sha256(String secret) {
    return HexFormat.of().formatHex(digest(secret));
  }

  /** True if {@code secret} hashes to {@code secretSha256}; constant time in the secret. */
  public static boolean matches(String secret, String secretSha256) {
    if (secret == null || secretSha256 == null) {
      return false;
    }
    byte[] expected;
    try {
      expected = HexFormat.of().parseHex(secretSha256);
    } catch (IllegalArgumentException e) {
      return false;
    }
    return MessageDigest.isEqual(digest(secret), expected);
  }

  private static byte[] digest(String secret) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  private static String base64Url(Random random, int bytes) {
    byte[] raw = new byte[bytes];
    random.nextBytes(raw);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
  }
}
