package dev.tributary.security;

import java.util.Objects;

/**
 * An API key: a public id, the principal it authenticates as, and the SHA-256 of its secret (the
 * secret itself is shown once, to whoever created the key, and stored nowhere). Clients present
 * {@code <keyId>.<secret>} as a bearer token, or the id and secret as HTTP basic user and password.
 *
 * <p>Invariant: keyId is 1..64 characters of {@code [A-Za-z0-9_-]} (so it never contains the {@code
 * .} or {@code :} that separate it from the secret); secretSha256 is 64 lowercase hex digits.
 */
public record ApiKey(
    String keyId, String principal, String secretSha256, String description, long createdMs) {

  public static final int MAX_DESCRIPTION_LENGTH = 1024;

  public ApiKey {
    requireValidKeyId(keyId);
    Principals.requireValid(principal);
    Objects.requireNonNull(secretSha256, "secretSha256");
    if (!secretSha256.matches("[0-9a-f]{64}")) {
      throw new IllegalArgumentException("secretSha256 must be 64 lowercase hex digits");
    }
    description = description == null ? "" : description;
    if (description.length() > MAX_DESCRIPTION_LENGTH) {
      throw new IllegalArgumentException(
          "description must be at most " + MAX_DESCRIPTION_LENGTH + " characters");
    }
  }

  /** True if {@code secret} is this key's secret (compared in constant time). */
  public boolean matches(String secret) {
    return ApiKeySecrets.matches(secret, secretSha256);
  }

  public static String requireValidKeyId(String keyId) {
    if (keyId == null || !keyId.matches("[A-Za-z0-9_-]{1,64}")) {
      throw new IllegalArgumentException(
          "an API key id is 1 to 64 letters, digits, '_' or '-', got '" + keyId + "'");
    }
    return keyId;
  }
}
