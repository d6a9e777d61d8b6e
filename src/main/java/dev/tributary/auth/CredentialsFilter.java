package dev.tributary.auth;

import dev.tributary.security.ApiKey;
import dev.tributary.security.Authorizer;
import dev.tributary.security.Principals;
import dev.tributary.transport.http.InternalApi;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextImpl;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Finds out who sent a request, in this order: another broker (the cluster secret, acting for the
 * principal it names in {@value RequestPrincipal#ON_BEHALF_OF_HEADER}, or as itself); an API key as
 * a bearer token ({@code Authorization: Bearer <keyId>.<secret>}) or as HTTP basic (key id and
 * secret as user and password); a dashboard sign-in cookie. Credentials that are presented but do
 * not hold end the request with 401 at once (never a silent fall back to anonymous). No credentials
 * at all leave the request anonymous, for {@link AccessRules} to refuse or allow.
 */
final class CredentialsFilter extends OncePerRequestFilter {
  private final Authorizer authorizer;
  private final Supplier<String> clusterSecret;
  private final DashboardSessions sessions;
  private final SecurityErrors errors;
  private final ClusterOrigins origins;

  private static final java.util.Set<String> SAFE_METHODS = java.util.Set.of("GET", "HEAD");

  CredentialsFilter(
      Authorizer authorizer,
      Supplier<String> clusterSecret,
      DashboardSessions sessions,
      SecurityErrors errors,
      ClusterOrigins origins) {
    this.origins = origins;
    this.authorizer = authorizer;
    this.clusterSecret = clusterSecret;
    this.sessions = sessions;
    this.errors = errors;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String presentedSecret = request.getHeader(InternalApi.SECRET_HEADER);
    if (presentedSecret != null && !RequestPaths.isInternal(request)) {
      if (!secretMatches(presentedSecret)) {
        errors.unauthenticated(request, response, 40101, "the cluster secret is wrong");
        return;
      }
      String onBehalfOf = request.getHeader(RequestPrincipal.ON_BEHALF_OF_HEADER);
      String principal = RequestPrincipal.BROKER;
      if (onBehalfOf != null) {
        try {
          principal = Principals.requireValid(onBehalfOf);
        } catch (IllegalArgumentException e) {
          errors.unauthenticated(request, response, 40102, e.getMessage());
          return;
        }
      }
      authenticated(request, principal, null, "cluster-secret");
      chain.doFilter(request, response);
      return;
    }
    String authorization = request.getHeader("Authorization");
    if (authorization != null) {
      Optional<ApiKey> key = apiKey(authorization);
      if (key.isEmpty()) {
        errors.unauthenticated(
            request,
            response,
            40102,
            "The API key is not valid: send 'Authorization: Bearer <key_id>.<secret>' or HTTP basic"
                + " with the key id and secret");
        return;
      }
      authenticated(
          request,
          key.get().principal(),
          key.get().keyId(),
          authorization.regionMatches(true, 0, "Basic ", 0, 6) ? "basic" : "bearer");
      chain.doFilter(request, response);
      return;
    }
    Optional<DashboardSessions.Session> session = session(request);
    if (session.isPresent()) {
      Optional<ApiKey> key =
          authorizer.key(session.get().keyId()).filter(k -> session.get().isFor(k));
      if (key.isPresent()) {
        // A cookie goes with every request the browser makes to this host, whichever page made
        // it: a change (anything but GET and HEAD) is taken only from the cluster's own pages
        // (CSRF; SameSite does not tell ports or sibling hosts apart).
        if (!SAFE_METHODS.contains(request.getMethod())
            && !isClusterPage(request.getHeader("Origin"), request.getHeader("Host"))) {
          errors.forbiddenChange(response);
          return;
        }
        authenticated(request, key.get().principal(), key.get().keyId(), "session");
      }
    }
    chain.doFilter(request, response);
  }

  private Optional<ApiKey> apiKey(String authorization) {
    String keyId;
    String secret;
    if (authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      String token = authorization.substring(7).trim();
      int dot = token.indexOf('.');
      if (dot <= 0) {
        return Optional.empty();
      }
      keyId = token.substring(0, dot);
      secret = token.substring(dot + 1);
    } else if (authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
      String decoded;
      try {
        decoded =
            new String(
                Base64.getDecoder().decode(authorization.substring(6).trim()),
                StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
      int colon = decoded.indexOf(':');
      if (colon <= 0) {
        return Optional.empty();
      }
      keyId = decoded.substring(0, colon);
      secret = decoded.substring(colon + 1);
    } else {
      return Optional.empty();
    }
    return authorizer.authenticate(keyId, secret);
  }

  private boolean isClusterPage(String origin, String host) {
    return origin != null && origins.isAllowed(origin, host);
  }

  private Optional<DashboardSessions.Session> session(HttpServletRequest request) {
    Cookie[] cookies = request.getCookies();
    if (cookies == null) {
      return Optional.empty();
    }
    for (Cookie cookie : cookies) {
      if (DashboardSessions.COOKIE.equals(cookie.getName())) {
        return sessions.verify(cookie.getValue());
      }
    }
    return Optional.empty();
  }

  private boolean secretMatches(String presented) {
    return InternalApi.secretMatches(clusterSecret.get(), presented);
  }

  private static void authenticated(
      HttpServletRequest request, String principal, String keyId, String method) {
    request.setAttribute(RequestPrincipal.ATTRIBUTE, principal);
    SecurityContextImpl context =
        new SecurityContextImpl(new TributaryAuthentication(principal, keyId, method));
    SecurityContextHolder.setContext(context);
  }
}
