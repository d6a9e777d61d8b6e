package dev.tributary.kafka.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.security.ApiKey;
import dev.tributary.security.ApiKeySecrets;
import dev.tributary.security.Authorizer;
import dev.tributary.security.SecurityImage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.security.plain.PlainAuthenticateCallback;
import org.apache.kafka.common.security.plain.internals.PlainSaslServer;
import org.junit.jupiter.api.Test;

/**
 * SASL/PLAIN against the API keys, through kafka-clients' own PLAIN server: the key id is the user
 * name, its secret the password, and failures read as Kafka's.
 */
class ApiKeyPlainCallbackHandlerTest {
  private static final String SECRET = "a-secret-of-forty-three-characters-0123456";
  private static final ApiKey BILLING =
      new ApiKey("billing-key", "User:billing", ApiKeySecrets.sha256(SECRET), "", 0);
  private static final ApiKey ADMIN =
      new ApiKey("admin", "User:admin", ApiKeySecrets.sha256("admin-secret"), "", 0);

  /** The key in the metadata image, and a bootstrap key from configuration. */
  private final Authorizer authorizer =
      new Authorizer(
          () -> SecurityImage.EMPTY.withApiKey(BILLING),
          Map.of(ADMIN.keyId(), ADMIN),
          Set.of("User:admin"));

  private ApiKeyPlainCallbackHandler handler() {
    ApiKeyPlainCallbackHandler handler = new ApiKeyPlainCallbackHandler();
    handler.configure(Map.of(ListenerChannels.API_KEYS_CONFIG, authorizer), "PLAIN", List.of());
    return handler;
  }

  private static byte[] plainToken(String authorizationId, String user, String password) {
    return (authorizationId + "\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void theKeyIdAndItsSecretAuthenticateAsTheKeyId() {
    PlainSaslServer server = new PlainSaslServer(handler());

    server.evaluateResponse(plainToken("", "billing-key", SECRET));

    assertThat(server.isComplete()).isTrue();
    assertThat(server.getAuthorizationID()).isEqualTo("billing-key");
  }

  @Test
  void aBootstrapKeyFromConfigurationAuthenticatesToo() {
    PlainSaslServer server = new PlainSaslServer(handler());

    server.evaluateResponse(plainToken("", "admin", "admin-secret"));

    assertThat(server.isComplete()).isTrue();
  }

  @Test
  void aWrongSecretAnUnknownKeyAndAnEmptyUserFailAsKafkaSays() {
    for (byte[] token :
        List.of(
            plainToken("", "billing-key", SECRET + "x"),
            plainToken("", "billing-key", "admin-secret"),
            plainToken("", "no-such-key", SECRET),
            plainToken("", "User:billing", SECRET))) {
      PlainSaslServer server = new PlainSaslServer(handler());
      assertThatThrownBy(() -> server.evaluateResponse(token))
          .isInstanceOf(SaslAuthenticationException.class)
          .hasMessage("Authentication failed: Invalid username or password");
      assertThat(server.isComplete()).isFalse();
    }
    PlainSaslServer server = new PlainSaslServer(handler());
    assertThatThrownBy(() -> server.evaluateResponse(plainToken("", "", SECRET)))
        .isInstanceOf(SaslAuthenticationException.class)
        .hasMessageContaining("Authentication failed");
  }

  @Test
  void answersTheCallbacksItIsGivenAndRefusesOthers() throws Exception {
    ApiKeyPlainCallbackHandler handler = handler();
    NameCallback name = new NameCallback("username", "billing-key");
    PlainAuthenticateCallback right = new PlainAuthenticateCallback(SECRET.toCharArray());
    PlainAuthenticateCallback wrong = new PlainAuthenticateCallback("nope".toCharArray());

    handler.handle(new Callback[] {name, right});
    handler.handle(new Callback[] {name, wrong});

    assertThat(right.authenticated()).isTrue();
    assertThat(wrong.authenticated()).isFalse();
    PlainAuthenticateCallback withoutName = new PlainAuthenticateCallback(SECRET.toCharArray());
    handler.handle(new Callback[] {withoutName});
    assertThat(withoutName.authenticated()).isFalse();
    assertThatThrownBy(
            () -> handler.handle(new Callback[] {new PasswordCallback("password", false)}))
        .isInstanceOf(UnsupportedCallbackException.class);
  }

  @Test
  void aKeyDeletedFromTheImageNoLongerAuthenticates() {
    SecurityImage[] image = {SecurityImage.EMPTY.withApiKey(BILLING)};
    Authorizer changing = new Authorizer(() -> image[0], Map.of(), Set.of());
    ApiKeyPlainCallbackHandler handler = new ApiKeyPlainCallbackHandler();
    handler.configure(Map.of(ListenerChannels.API_KEYS_CONFIG, changing), "PLAIN", List.of());
    new PlainSaslServer(handler).evaluateResponse(plainToken("", "billing-key", SECRET));

    image[0] = image[0].withoutApiKey("billing-key");

    assertThatThrownBy(
            () ->
                new PlainSaslServer(handler)
                    .evaluateResponse(plainToken("", "billing-key", SECRET)))
        .isInstanceOf(SaslAuthenticationException.class);
  }

  @Test
  void configuringWithoutTheBrokersKeysFails() {
    assertThatThrownBy(
            () -> new ApiKeyPlainCallbackHandler().configure(Map.of(), "PLAIN", List.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(ListenerChannels.API_KEYS_CONFIG);
  }
}
