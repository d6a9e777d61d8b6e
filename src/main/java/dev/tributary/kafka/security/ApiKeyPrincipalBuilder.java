package dev.tributary.kafka.security;

import dev.tributary.security.ApiKey;
import dev.tributary.security.Authorizer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.security.auth.AuthenticationContext;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.KafkaPrincipalBuilder;
import org.apache.kafka.common.security.auth.SaslAuthenticationContext;

/**
 * The principal of a SASL/PLAIN connection: the principal of the API key it authenticated with
 * ({@code User:billing}), as REST sees the same key, not the key id that PLAIN calls the user.
 * kafka-clients builds it once, when the connection has authenticated, and keeps it: it is an
 * {@link ApiKeyPrincipal}, which the listener checks before every request (a deleted key's
 * connection is closed, and a new one cannot authenticate).
 *
 * <p>Made by class name ({@code principal.builder.class}); the {@link Authorizer} comes in the
 * configs under {@link ListenerChannels#API_KEYS_CONFIG}.
 */
public final class ApiKeyPrincipalBuilder implements KafkaPrincipalBuilder, Configurable {
  private Authorizer apiKeys;

  /** For kafka-clients, which makes it by name and then calls {@link #configure}. */
  public ApiKeyPrincipalBuilder() {}

  @Override
  public void configure(Map<String, ?> configs) {
    apiKeys = ListenerChannels.apiKeys(configs);
  }

  /**
   * @throws SaslAuthenticationException if the key was deleted since it authenticated
   * @throws IllegalArgumentException for a connection that did not authenticate with SASL
   */
  @Override
  public ApiKeyPrincipal build(AuthenticationContext context) {
    if (!(context instanceof SaslAuthenticationContext sasl)) {
      throw new IllegalArgumentException(
          "API key principals come from SASL authentication, not " + context.securityProtocol());
    }
    String keyId = sasl.server().getAuthorizationID();
    ApiKey key =
        apiKeys
            .key(keyId)
            .orElseThrow(
                () ->
                    new SaslAuthenticationException(
                        "API key " + keyId + " no longer exists; authenticate again"));
    KafkaPrincipal principal = parse(key.principal());
    return new ApiKeyPrincipal(principal.getPrincipalType(), principal.getName(), key, apiKeys);
  }

  /** {@code Type:name} (every API key's principal has this form) as a KafkaPrincipal. */
  static KafkaPrincipal parse(String principal) {
    int colon = principal.indexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("not a principal (Type:name): " + principal);
    }
    return new KafkaPrincipal(principal.substring(0, colon), principal.substring(colon + 1));
  }

  /** Kafka forwards principals to its controller in this form; ours is {@code Type:name}. */
  @Override
  public byte[] serialize(KafkaPrincipal principal) {
    return principal.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public KafkaPrincipal deserialize(byte[] bytes) {
    try {
      return parse(new String(bytes, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      throw new SerializationException(e.getMessage());
    }
  }
}
