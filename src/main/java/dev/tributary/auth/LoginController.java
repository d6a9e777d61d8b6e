package dev.tributary.auth;

import dev.tributary.security.AclOperation;
import dev.tributary.security.ApiKey;
import dev.tributary.security.Authorizer;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseCookie;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseBody;
import org.springframework.web.servlet.ModelAndView;

/**
 * Signing in to the dashboard with an API key, signing out, and {@code GET /v3/whoami}. A sign-in
 * sets the {@value DashboardSessions#COOKIE} cookie (HttpOnly, SameSite=Strict, Secure over TLS);
 * the browser then sends it with every page call and with the socket's upgrade request.
 */
@Controller
class LoginController {
  private final Authorizer authorizer;
  private final DashboardSessions sessions;
  private final SecurityProperties properties;
  private final SecurityErrors errors;

  LoginController(
      Authorizer authorizer,
      DashboardSessions sessions,
      SecurityProperties properties,
      SecurityErrors errors) {
    this.authorizer = authorizer;
    this.sessions = sessions;
    this.properties = properties;
    this.errors = errors;
  }

  @GetMapping("/login")
  String loginPage(Model model) {
    if (!properties.enabled()) {
      return "redirect:/";
    }
    model.addAttribute("error", null);
    return "login";
  }

  @PostMapping(path = "/login", consumes = "application/x-www-form-urlencoded")
  ModelAndView login(
      @RequestParam(name = "key_id", defaultValue = "") String keyId,
      @RequestParam(name = "secret", defaultValue = "") String secret,
      HttpServletRequest request,
      HttpServletResponse response) {
    if (!properties.enabled()) {
      return new ModelAndView("redirect:/");
    }
    Optional<ApiKey> key = authorizer.authenticate(keyId.trim(), secret.trim());
    if (key.isEmpty()) {
      errors.count("unauthenticated");
      return new ModelAndView(
          "login",
          Map.of("error", "That key id and secret do not match an API key."),
          HttpStatus.UNAUTHORIZED);
    }
    ResponseCookie cookie =
        ResponseCookie.from(DashboardSessions.COOKIE, sessions.issue(key.get()))
            .httpOnly(true)
            .secure(request.isSecure())
            .sameSite("Strict")
            .path("/")
            .maxAge(Duration.ofMillis(sessions.lifetimeMs()))
            .build();
    response.addHeader(HttpHeaders.SET_COOKIE, cookie.toString());
    return new ModelAndView("redirect:/");
  }

  @PostMapping("/logout")
  ResponseEntity<Void> logout(HttpServletRequest request) {
    ResponseCookie cookie =
        ResponseCookie.from(DashboardSessions.COOKIE, "")
            .httpOnly(true)
            .secure(request.isSecure())
            .sameSite("Strict")
            .path("/")
            .maxAge(0)
            .build();
    return ResponseEntity.status(HttpStatus.SEE_OTHER)
        .header(HttpHeaders.SET_COOKIE, cookie.toString())
        .header(HttpHeaders.LOCATION, properties.enabled() ? "/login" : "/")
        .build();
  }

  /** Who the caller is, and what it may do on the cluster. */
  @GetMapping("/v3/whoami")
  @ResponseBody
  Map<String, Object> whoami(HttpServletRequest request) {
    String principal = RequestPrincipal.of(request);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("principal", principal);
    out.put("authentication_enabled", properties.enabled());
    out.put("super_user", !properties.enabled() || authorizer.isSuperUser(principal));
    Map<String, Boolean> cluster = new LinkedHashMap<>();
    for (AclOperation operation : AclOperation.values()) {
      cluster.put(
          operation.name(),
          !properties.enabled() || authorizer.authorizeCluster(principal, operation));
    }
    out.put("cluster_operations", cluster);
    return out;
  }
}
