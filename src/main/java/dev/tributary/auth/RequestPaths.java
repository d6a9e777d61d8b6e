package dev.tributary.auth;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.web.util.UrlPathHelper;

/**
 * Request paths as Spring MVC routes them: percent-decoded. A check made on the raw URI would let
 * {@code /%69nternal/...} pass as "not internal" and still reach an internal handler.
 */
public final class RequestPaths {
  private RequestPaths() {}

  /** True if the request is for the internal broker-to-broker API, however its path is encoded. */
  public static boolean isInternal(HttpServletRequest request) {
    String raw = request.getRequestURI();
    if (raw.startsWith("/internal/")) {
      return true;
    }
    // Decoding costs only paths that are encoded (the firewall refuses ';' and '//', so a path
    // without '%' is already what MVC routes).
    return raw.indexOf('%') >= 0
        && UrlPathHelper.defaultInstance.getPathWithinApplication(request).startsWith("/internal/");
  }
}
