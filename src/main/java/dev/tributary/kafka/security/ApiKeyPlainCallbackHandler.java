package dev.tributary.kafka.security;

import dev.tributary.security.Authorizer;
import java.nio.CharBuffer;
import java.util.List;
import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.plain.PlainAuthenticateCallback;

/**
 * Checks SASL/PLAIN credentials against the broker's API keys: the user name is the key id, the
 * password its secret, as a REST client sends them over HTTP basic. kafka-clients' PLAIN server
 * asks this for every authentication; on {@code false} it answers SASL_AUTHENTICATION_FAILED with
 * "Authentication failed: Invalid username or password" and closes the connection, as Kafka does.
 *
 * <p>The check is {@link Authorizer#authenticate}: SHA-256 of the secret compared in constant time,
 * and an unknown id hashed too, so timing does not tell an unknown id from a wrong secret.
 *
 * <p>kafka-clients makes this by class name ({@code listener.name.kafka.plain.sasl.server.
 * callback.handler.class}); the {@link Authorizer} instance comes in the channel builder's configs
 * under {@link ListenerChannels#API_KEYS_CONFIG}. Thread-safe once configured (the processors'
 * threads each own one; the authorizer is thread-safe).
 */
public final class ApiKeyPlainCallbackHandler implements AuthenticateCallbackHandler {
  private Authorizer apiKeys;

  /** For kafka-clients, which makes it by name and then calls {@link #configure}. */
  public ApiKeyPlainCallbackHandler() {}

  @Override
  public void configure(
      Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> jaasEntries) {
    apiKeys = ListenerChannels.apiKeys(configs);
  }

  @Override
  public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
    String keyId = null;
    for (Callback callback : callbacks) {
      if (callback instanceof NameCallback name) {
        keyId = name.getDefaultName();
      } else if (callback instanceof PlainAuthenticateCallback plain) {
        plain.authenticated(authenticate(keyId, plain.password()));
      } else {
        throw new UnsupportedCallbackException(callback);
      }
    }
  }

  private boolean authenticate(String keyId, char[] secret) {
    if (apiKeys == null) {
      throw new IllegalStateException("not configured: no API keys to check credentials against");
    }
    return apiKeys
        .authenticate(keyId == null ? "" : keyId, CharBuffer.wrap(secret).toString())
        .isPresent();
  }

  @Override
  public void close() {}
}
