package dev.tributary.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class AuthorizerTest {
  private final AtomicReference<SecurityImage> image = new AtomicReference<>(SecurityImage.EMPTY);
  private final Authorizer authorizer = new Authorizer(image::get, Map.of(), Set.of("User:root"));

  private void grant(
      String principal, AclOperation op, ResourceType type, PatternType p, String n) {
    image.set(image.get().withAcl(new AclBinding(principal, op, type, p, n)));
  }

  @Test
  void noAclMeansNoAccessExceptForSuperUsers() {
    assertThat(authorizer.authorize("User:alice", AclOperation.READ, ResourceType.TOPIC, "t"))
        .isFalse();
    assertThat(authorizer.authorize("User:root", AclOperation.ADMIN, ResourceType.TOPIC, "t"))
        .isTrue();
    assertThat(authorizer.authorizeCluster("User:root", AclOperation.ADMIN)).isTrue();
  }

  @Test
  void literalPrefixedAndWildcardPatternsMatchAsKafkasDo() {
    grant("User:a", AclOperation.READ, ResourceType.TOPIC, PatternType.LITERAL, "orders");
    grant("User:b", AclOperation.READ, ResourceType.TOPIC, PatternType.PREFIXED, "orders");
    grant("User:c", AclOperation.READ, ResourceType.TOPIC, PatternType.LITERAL, "*");
    assertThat(authorizer.authorize("User:a", AclOperation.READ, ResourceType.TOPIC, "orders"))
        .isTrue();
    assertThat(authorizer.authorize("User:a", AclOperation.READ, ResourceType.TOPIC, "orders-eu"))
        .isFalse();
    assertThat(authorizer.authorize("User:b", AclOperation.READ, ResourceType.TOPIC, "orders-eu"))
        .isTrue();
    assertThat(authorizer.authorize("User:b", AclOperation.READ, ResourceType.TOPIC, "order"))
        .isFalse();
    assertThat(authorizer.authorize("User:c", AclOperation.READ, ResourceType.TOPIC, "anything"))
        .isTrue();
    // A topic grant says nothing about a group of the same name.
    assertThat(authorizer.authorize("User:c", AclOperation.READ, ResourceType.GROUP, "anything"))
        .isFalse();
  }

  @Test
  void adminImpliesReadAndWriteButReadImpliesNothingElse() {
    grant("User:a", AclOperation.ADMIN, ResourceType.TOPIC, PatternType.LITERAL, "t");
    grant("User:r", AclOperation.READ, ResourceType.TOPIC, PatternType.LITERAL, "t");
    for (AclOperation op : AclOperation.values()) {
      assertThat(authorizer.authorize("User:a", op, ResourceType.TOPIC, "t")).isTrue();
    }
    assertThat(authorizer.authorize("User:r", AclOperation.WRITE, ResourceType.TOPIC, "t"))
        .isFalse();
    assertThat(authorizer.authorize("User:r", AclOperation.ADMIN, ResourceType.TOPIC, "t"))
        .isFalse();
  }

  @Test
  void apiKeysAuthenticateByTheirSecretOnlyUntilDeleted() {
    Random random = new Random(7);
    String secret = ApiKeySecrets.newSecret(random);
    ApiKey key =
        new ApiKey(
            ApiKeySecrets.newKeyId(random), "User:alice", ApiKeySecrets.sha256(secret), "", 0);
    image.set(image.get().withApiKey(key));
    assertThat(authorizer.authenticate(key.keyId(), secret)).contains(key);
    assertThat(authorizer.authenticate(key.keyId(), secret + "x")).isEmpty();
    assertThat(authorizer.authenticate("unknown", secret)).isEmpty();
    assertThat(authorizer.principalOfKey(key.keyId())).contains("User:alice");
    image.set(image.get().withoutApiKey(key.keyId()));
    assertThat(authorizer.authenticate(key.keyId(), secret)).isEmpty();
    assertThat(authorizer.principalOfKey(key.keyId())).isEmpty();
  }

  @Test
  void bootstrapKeysAuthenticateWithoutTheMetadataLog() {
    ApiKey boot = new ApiKey("admin", "User:root", ApiKeySecrets.sha256("pw"), "", 0);
    Authorizer withBoot =
        new Authorizer(image::get, Map.of(boot.keyId(), boot), Set.of("User:root"));
    assertThat(withBoot.authenticate("admin", "pw")).contains(boot);
  }

  @Test
  void malformedGrantsAreRefusedBeforeTheyReachTheLog() {
    assertThatThrownBy(
            () ->
                new AclBinding(
                    "alice", AclOperation.READ, ResourceType.TOPIC, PatternType.LITERAL, "t"))
        .hasMessageContaining("Type:name");
    assertThatThrownBy(
            () ->
                new AclBinding(
                    "User:a", AclOperation.READ, ResourceType.CLUSTER, PatternType.LITERAL, "x"))
        .hasMessageContaining("kafka-cluster");
    assertThatThrownBy(
            () ->
                new AclBinding(
                    "User:a", AclOperation.READ, ResourceType.TOPIC, PatternType.PREFIXED, "*"))
        .hasMessageContaining("PREFIXED");
    assertThatThrownBy(() -> new ApiKey("a.b", "User:a", ApiKeySecrets.sha256("s"), "", 0))
        .hasMessageContaining("key id");
  }
}
