package dev.tributary.auth;

import java.util.List;
import org.springframework.security.authentication.AbstractAuthenticationToken;

/**
 * An authenticated request in Spring Security's terms: the principal's name and how it proved it
 * ({@code bearer}, {@code basic}, {@code session} or {@code cluster-secret}). What it may do is
 * decided per request from the ACLs ({@link AccessRules}), not from authorities fixed at sign-in,
 * so a changed ACL applies at once.
 */
final class TributaryAuthentication extends AbstractAuthenticationToken {
  private final String principal;
  private final String keyId;
  private final String method;

  TributaryAuthentication(String principal, String keyId, String method) {
    super(List.of());
    this.principal = principal;
    this.keyId = keyId;
    this.method = method;
    setAuthenticated(true);
  }

  @Override
  public Object getCredentials() {
    return ""; // never kept
  }

  @Override
  public Object getPrincipal() {
    return principal;
  }

  @Override
  public String getName() {
    return principal;
  }

  String keyId() {
    return keyId;
  }

  String method() {
    return method;
  }
}
