package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.errors.AuthorizationException;
import dev.tributary.common.errors.Errors;
import dev.tributary.security.AclBinding;
import dev.tributary.security.AclOperation;
import dev.tributary.security.Authorizer;
import dev.tributary.security.PatternType;
import dev.tributary.security.ResourceType;
import dev.tributary.security.SecurityImage;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link AccessControl} over a real {@link Authorizer}: Kafka's rules, and what a refusal says. */
class AccessControlTest {
  private static final RequestContext ALICE = new RequestContext("User:alice", "10.0.0.1", false);
  private final AtomicInteger denials = new AtomicInteger();
  private SecurityImage security = SecurityImage.EMPTY;
  private final AccessControl access =
      new AccessControl(
          new Authorizer(() -> security, Map.of(), Set.of("User:root")),
          true,
          denials::incrementAndGet);

  private void grant(AclOperation operation, ResourceType type, PatternType pattern, String name) {
    security = security.withAcl(new AclBinding("User:alice", operation, type, pattern, name));
  }

  @Test
  void withSecurityOffEverythingIsAllowedAndNothingIsAsked() {
    AccessControl off = new AccessControl(null, false, denials::incrementAndGet);

    assertThat(off.allows(ALICE, AclOperation.ADMIN, ResourceType.CLUSTER, "kafka-cluster"))
        .isTrue();
    off.require(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "orders");
    assertThat(AccessControl.ALLOW_ALL.allows("User:x", AclOperation.READ, ResourceType.GROUP, "g"))
        .isTrue();
    assertThat(denials).hasValue(0);
  }

  @Test
  void withoutAnAclNothingIsAllowedExceptToSuperUsers() {
    assertThat(access.allows(ALICE, AclOperation.READ, ResourceType.TOPIC, "orders")).isFalse();
    assertThat(
            access.allows("User:root", AclOperation.ADMIN, ResourceType.CLUSTER, "kafka-cluster"))
        .isTrue();
  }

  @Test
  void adminImpliesReadAndWriteButNothingElseImpliesAnything() {
    grant(AclOperation.ADMIN, ResourceType.TOPIC, PatternType.LITERAL, "orders");
    grant(AclOperation.WRITE, ResourceType.TOPIC, PatternType.LITERAL, "logs");

    assertThat(access.allows(ALICE, AclOperation.READ, ResourceType.TOPIC, "orders")).isTrue();
    assertThat(access.allows(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "orders")).isTrue();
    assertThat(access.allows(ALICE, AclOperation.READ, ResourceType.TOPIC, "logs")).isFalse();
    assertThat(access.allows(ALICE, AclOperation.READ, ResourceType.GROUP, "orders")).isFalse();
  }

  @Test
  void prefixedAndWildcardGrantsMatchAsInKafka() {
    grant(AclOperation.READ, ResourceType.TOPIC, PatternType.PREFIXED, "team-a.");
    grant(AclOperation.READ, ResourceType.GROUP, PatternType.LITERAL, AclBinding.WILDCARD);

    assertThat(access.allows(ALICE, AclOperation.READ, ResourceType.TOPIC, "team-a.orders"))
        .isTrue();
    assertThat(access.allows(ALICE, AclOperation.READ, ResourceType.TOPIC, "team-b.orders"))
        .isFalse();
    assertThat(access.allows(ALICE, AclOperation.READ, ResourceType.GROUP, "any-group")).isTrue();
  }

  @Test
  void clusterChecksUseTheClustersOwnResource() {
    grant(
        AclOperation.ADMIN, ResourceType.CLUSTER, PatternType.LITERAL, AccessControl.clusterName());

    assertThat(access.allows(ALICE, AclOperation.ADMIN, ResourceType.CLUSTER, "ignored")).isTrue();
  }

  @Test
  void aRefusalNamesThePrincipalOperationAndResourceWithTheResourcesErrorAndIsCounted() {
    assertThatThrownBy(
            () -> access.require(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "orders"))
        .isInstanceOfSatisfying(
            AuthorizationException.class,
            e -> assertThat(e.error()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED))
        .hasMessageStartingWith("User:alice is not authorized to WRITE topic 'orders'");
    assertThatThrownBy(() -> access.require(ALICE, AclOperation.READ, ResourceType.GROUP, "g"))
        .isInstanceOfSatisfying(
            AuthorizationException.class,
            e -> assertThat(e.error()).isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED));
    assertThatThrownBy(
            () ->
                access.require(
                    ALICE, AclOperation.ADMIN, ResourceType.CLUSTER, AccessControl.clusterName()))
        .isInstanceOfSatisfying(
            AuthorizationException.class,
            e -> assertThat(e.error()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED))
        .hasMessageContaining("ADMIN the cluster");
    assertThat(denials).hasValue(3);
  }

  @Test
  void anAllowedRequestIsNotCounted() {
    grant(AclOperation.READ, ResourceType.TOPIC, PatternType.LITERAL, "orders");

    access.require(ALICE, AclOperation.READ, ResourceType.TOPIC, "orders");

    assertThat(denials).hasValue(0);
  }
}
