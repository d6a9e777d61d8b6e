package dev.tributary.kafka.security;

import dev.tributary.security.ApiKey;
import dev.tributary.security.Authorizer;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The principal of a connection that authenticated with an API key: the key's principal ({@code
 * User:billing}, what ACLs name and what {@link #toString} says), remembering the key.
 * kafka-clients builds a connection's principal once, when it has authenticated, and keeps it for
 * the connection's life; so the listener asks {@link #revoked} before every request, and a key
 * deleted (or replaced) since then stops working on open connections too, as it does over REST.
 *
 * <p>Two are equal when they are the same principal through the same key.
 */
public final class ApiKeyPrincipal extends KafkaPrincipal {
  private final ApiKey key;
  private final Authorizer apiKeys;

  /**
   * @param key the key the connection authenticated with; its principal is {@code type:name}
   */
  ApiKeyPrincipal(String type, String name, ApiKey key, Authorizer apiKeys) {
    super(type, name);
    this.key = Objects.requireNonNull(key, "key");
    this.apiKeys = Objects.requireNonNull(apiKeys, "apiKeys");
    if (!key.principal().equals(toString())) {
      throw new IllegalArgumentException(toString() + " is not the principal of " + key.keyId());
    }
  }

  public String keyId() {
    return key.keyId();
  }

  /**
   * True once the key this connection authenticated with is gone, or is no longer the same key (a
   * new secret or principal under its id): the connection must end. A map look-up.
   */
  public boolean revoked() {
    return !apiKeys.key(key.keyId()).equals(Optional.of(key));
  }

  @Override
  public boolean equals(Object o) {
    // KafkaPrincipal.equals compares classes first, so o is an ApiKeyPrincipal here.
    return super.equals(o) && key.equals(((ApiKeyPrincipal) o).key);
  }

  @Override
  public int hashCode() {
    return 31 * super.hashCode() + key.keyId().hashCode();
  }
}
