package dev.tributary.auth;

import dev.tributary.security.Principals;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Who sent a request, as {@link CredentialsFilter} decided: a principal name such as {@code
 * User:alice}, kept as a request attribute so that every layer (access checks, limits, quotas,
 * consumer instances) reads the same answer.
 */
public final class RequestPrincipal {
  /** The request attribute holding the principal's name. */
  public static final String ATTRIBUTE = "dev.tributary.principal";

  /**
   * The principal that other brokers act as when they forward a request with the cluster secret.
   */
  public static final String BROKER = Principals.BROKER;

  /**
   * Names the client principal a broker forwards a request for; honoured only together with the
   * cluster secret.
   */
  public static final String ON_BEHALF_OF_HEADER = "X-Tributary-Principal";

  private RequestPrincipal() {}

  /** The request's principal; {@link Principals#ANONYMOUS} when nobody authenticated. */
  public static String of(HttpServletRequest request) {
    Object principal = request.getAttribute(ATTRIBUTE);
    return principal instanceof String name ? name : Principals.ANONYMOUS;
  }
}
