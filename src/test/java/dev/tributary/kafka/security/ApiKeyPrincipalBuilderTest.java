package dev.tributary.kafka.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.security.ApiKey;
import dev.tributary.security.ApiKeySecrets;
import dev.tributary.security.Authorizer;
import dev.tributary.security.SecurityImage;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.PlaintextAuthenticationContext;
import org.apache.kafka.common.security.auth.SaslAuthenticationContext;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.plain.internals.PlainSaslServer;
import org.junit.jupiter.api.Test;

/** A SASL/PLAIN connection is the principal of its API key, as REST sees the key. */
class ApiKeyPrincipalBuilderTest {
  private static final ApiKey BILLING =
      new ApiKey("billing-key", "User:billing", ApiKeySecrets.sha256("s1"), "", 0);
  private static final ApiKey INGEST =
      new ApiKey("ingest-key", "Service:ingest", ApiKeySecrets.sha256("s2"), "", 0);

  private final SecurityImage[] image = {
    SecurityImage.EMPTY.withApiKey(BILLING).withApiKey(INGEST)
  };
  private final Authorizer authorizer = new Authorizer(() -> image[0], Map.of(), Set.of());

  private ApiKeyPrincipalBuilder builder() {
    ApiKeyPrincipalBuilder builder = new ApiKeyPrincipalBuilder();
    builder.configure(Map.of(ListenerChannels.API_KEYS_CONFIG, authorizer));
    return builder;
  }

  /** What kafka-clients hands the builder once a client authenticated with {@code keyId}. */
  private SaslAuthenticationContext authenticated(String keyId, String secret) {
    ApiKeyPlainCallbackHandler handler = new ApiKeyPlainCallbackHandler();
    handler.configure(Map.of(ListenerChannels.API_KEYS_CONFIG, authorizer), "PLAIN", List.of());
    PlainSaslServer server = new PlainSaslServer(handler);
    server.evaluateResponse(("\0" + keyId + "\0" + secret).getBytes(StandardCharsets.UTF_8));
    return new SaslAuthenticationContext(
        server, SecurityProtocol.SASL_PLAINTEXT, InetAddress.getLoopbackAddress(), "KAFKA");
  }

  @Test
  void theConnectionIsTheKeysPrincipalNotItsId() {
    KafkaPrincipal principal = builder().build(authenticated("billing-key", "s1"));

    assertThat(principal.getPrincipalType()).isEqualTo("User");
    assertThat(principal.getName()).isEqualTo("billing");
    // What the listener hands the services: the principal ACLs name.
    assertThat(principal.toString()).isEqualTo("User:billing");
  }

  @Test
  void aPrincipalOfAnotherTypeKeepsItsType() {
    KafkaPrincipal principal = builder().build(authenticated("ingest-key", "s2"));

    assertThat(principal.getPrincipalType()).isEqualTo("Service");
    assertThat(principal.getName()).isEqualTo("ingest");
  }

  @Test
  void thePrincipalKnowsWhenItsKeyIsDeleted() {
    SaslAuthenticationContext context = authenticated("billing-key", "s1");
    ApiKeyPrincipalBuilder builder = builder();
    ApiKeyPrincipal principal = builder.build(context);
    assertThat(principal.keyId()).isEqualTo("billing-key");
    assertThat(principal.revoked()).isFalse();

    image[0] = image[0].withoutApiKey("billing-key");

    assertThat(principal.revoked()).isTrue();
    // Deleted between its authentication and the principal's making: no principal at all.
    assertThatThrownBy(() -> builder.build(context))
        .isInstanceOf(SaslAuthenticationException.class)
        .hasMessageContaining("billing-key no longer exists");
  }

  @Test
  void aKeyReplacedUnderItsIdRevokesThePrincipalsOfTheOldOne() {
    ApiKeyPrincipal principal = builder().build(authenticated("billing-key", "s1"));

    image[0] =
        image[0].withApiKey(
            new ApiKey("billing-key", "User:billing", ApiKeySecrets.sha256("new"), "", 0));

    assertThat(principal.revoked()).isTrue();
    assertThat(builder().build(authenticated("billing-key", "new")).revoked()).isFalse();
  }

  @Test
  void principalsOfTwoKeysOfOnePrincipalDiffer() {
    image[0] =
        image[0].withApiKey(
            new ApiKey("billing-key-2", "User:billing", ApiKeySecrets.sha256("s3"), "", 0));
    ApiKeyPrincipal first = builder().build(authenticated("billing-key", "s1"));
    ApiKeyPrincipal again = builder().build(authenticated("billing-key", "s1"));
    ApiKeyPrincipal second = builder().build(authenticated("billing-key-2", "s3"));

    assertThat(first).isEqualTo(again).hasSameHashCodeAs(again).isNotEqualTo(second);
    assertThat(first.toString()).isEqualTo(second.toString()).isEqualTo("User:billing");
  }

  @Test
  void aConnectionThatDidNotUseSaslIsRefused() {
    assertThatThrownBy(
            () ->
                builder()
                    .build(
                        new PlaintextAuthenticationContext(
                            InetAddress.getLoopbackAddress(), "KAFKA")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void principalsSerializeAsTypeColonName() {
    ApiKeyPrincipalBuilder builder = builder();
    KafkaPrincipal principal = new KafkaPrincipal("User", "a:b");

    byte[] bytes = builder.serialize(principal);

    assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("User:a:b");
    assertThat(builder.deserialize(bytes)).isEqualTo(principal);
    assertThatThrownBy(() -> builder.deserialize("nocolon".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(SerializationException.class);
  }
}
