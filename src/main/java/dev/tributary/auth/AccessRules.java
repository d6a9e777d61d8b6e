package dev.tributary.auth;

import dev.tributary.security.AclBinding;
import dev.tributary.security.AclOperation;
import dev.tributary.security.Authorizer;
import dev.tributary.security.ResourceType;
import dev.tributary.server.AccessControl;
import dev.tributary.transport.http.InternalApi;
import java.util.function.Supplier;
import org.springframework.security.authorization.AuthorizationDecision;
import org.springframework.security.authorization.AuthorizationManager;
import org.springframework.security.core.Authentication;
import org.springframework.security.web.access.intercept.RequestAuthorizationContext;

/**
 * The ACL checks that the path alone decides ({@code /topics/{topic}/...}: the topic; {@code
 * /consumers/{group}/...}: the group), as Spring Security authorization managers. Checks that need
 * the body (the topic a v3 create names, the topics a consumer subscribes to) and list filtering
 * are made in the controllers through {@link AccessGuard}.
 */
final class AccessRules {
  private final Authorizer authorizer;

  AccessRules(Authorizer authorizer) {
    this.authorizer = authorizer;
  }

  AuthorizationManager<RequestAuthorizationContext> topic(AclOperation operation) {
    return resource(operation, ResourceType.TOPIC, "topic");
  }

  AuthorizationManager<RequestAuthorizationContext> group(AclOperation operation, String variable) {
    return resource(operation, ResourceType.GROUP, variable);
  }

  AuthorizationManager<RequestAuthorizationContext> cluster(AclOperation operation) {
    return (authentication, context) -> {
      String principal = principal(authentication);
      if (principal == null) {
        return new AuthorizationDecision(false);
      }
      boolean allowed = authorizer.authorizeCluster(principal, operation);
      if (!allowed) {
        deny(context, principal, operation, ResourceType.CLUSTER, AclBinding.CLUSTER_NAME);
      }
      return new AuthorizationDecision(allowed);
    };
  }

  /** The cluster secret in its header, compared in constant time. */
  AuthorizationManager<RequestAuthorizationContext> clusterSecret(Supplier<String> secret) {
    return (authentication, context) ->
        new AuthorizationDecision(
            InternalApi.secretMatches(
                secret.get(), context.getRequest().getHeader(InternalApi.SECRET_HEADER)));
  }

  AuthorizationManager<RequestAuthorizationContext> authenticated() {
    return (authentication, context) ->
        new AuthorizationDecision(principal(authentication) != null);
  }

  private AuthorizationManager<RequestAuthorizationContext> resource(
      AclOperation operation, ResourceType type, String variable) {
    return (authentication, context) -> {
      String principal = principal(authentication);
      if (principal == null) {
        return new AuthorizationDecision(false);
      }
      String name = context.getVariables().get(variable);
      boolean allowed = name != null && authorizer.authorize(principal, operation, type, name);
      if (!allowed) {
        deny(context, principal, operation, type, name);
      }
      return new AuthorizationDecision(allowed);
    };
  }

  /** The authenticated principal, or null for an anonymous request. */
  static String principal(Supplier<? extends Authentication> authentication) {
    Authentication auth = authentication.get();
    return auth instanceof TributaryAuthentication t ? t.getName() : null;
  }

  static void deny(
      RequestAuthorizationContext context,
      String principal,
      AclOperation operation,
      ResourceType type,
      String name) {
    context
        .getRequest()
        .setAttribute(SecurityErrors.DENIAL_ATTRIBUTE, denial(principal, operation, type, name));
  }

  static SecurityErrors.Denial denial(
      String principal, AclOperation operation, ResourceType type, String name) {
    int code =
        switch (type) {
          case TOPIC -> 40303;
          case GROUP -> 40304;
          case CLUSTER -> 40305;
        };
    return new SecurityErrors.Denial(code, AccessControl.message(principal, operation, type, name));
  }
}
