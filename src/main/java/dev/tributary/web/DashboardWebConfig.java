package dev.tributary.web;

import dev.tributary.auth.ClusterOrigins;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Map;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.web.cors.CorsConfiguration;
import org.springframework.web.filter.CorsFilter;
import org.springframework.web.socket.WebSocketHandler;
import org.springframework.web.socket.config.annotation.EnableWebSocket;
import org.springframework.web.socket.config.annotation.WebSocketConfigurer;
import org.springframework.web.socket.config.annotation.WebSocketHandlerRegistry;
import org.springframework.web.socket.server.HandshakeInterceptor;

/**
 * The live view's socket at {@code /dashboard/ws}, and CORS for the page's HTTP actions: both
 * accept the pages of the cluster's own brokers only ({@link ClusterOrigins}), since a page keeps
 * working through another broker when the one that served it dies.
 */
@Configuration
@EnableWebSocket
class DashboardWebConfig implements WebSocketConfigurer {
  private final DashboardSocketHandler handler;
  private final ClusterOrigins origins;

  DashboardWebConfig(DashboardSocketHandler handler, ClusterOrigins origins) {
    this.handler = handler;
    this.origins = origins;
  }

  @Override
  public void registerWebSocketHandlers(WebSocketHandlerRegistry registry) {
    registry
        .addHandler(handler, "/dashboard/ws")
        .setAllowedOriginPatterns(
            "*") // checked by the interceptor below against the live broker list
        .addInterceptors(
            new HandshakeInterceptor() {
              @Override
              public boolean beforeHandshake(
                  ServerHttpRequest request,
                  ServerHttpResponse response,
                  WebSocketHandler wsHandler,
                  Map<String, Object> attributes) {
                String origin = request.getHeaders().getOrigin();
                String host = request.getHeaders().getFirst("Host");
                if (origins.isAllowed(origin, host)) {
                  return true;
                }
                response.setStatusCode(HttpStatus.FORBIDDEN);
                return false;
              }

              @Override
              public void afterHandshake(
                  ServerHttpRequest request,
                  ServerHttpResponse response,
                  WebSocketHandler wsHandler,
                  Exception exception) {}
            });
  }

  /** CORS for the API paths the page calls, answered for cluster origins only. */
  @Bean
  FilterRegistrationBean<CorsFilter> clusterCorsFilter() {
    CorsFilter filter =
        new CorsFilter(
            (HttpServletRequest request) -> {
              String origin = request.getHeader("Origin");
              if (origin == null || !origins.isAllowed(origin, request.getHeader("Host"))) {
                return null;
              }
              CorsConfiguration config = new CorsConfiguration();
              config.setAllowedOrigins(List.of(origin));
              config.setAllowedMethods(List.of("GET", "POST", "PUT", "DELETE"));
              config.setAllowedHeaders(List.of("Content-Type", "Accept"));
              // The sign-in cookie goes with the page's calls to the other brokers of the cluster.
              config.setAllowCredentials(true);
              config.setMaxAge(600L);
              return config;
            });
    FilterRegistrationBean<CorsFilter> registration = new FilterRegistrationBean<>(filter);
    registration.addUrlPatterns("/topics/*", "/v3/*", "/dashboard/*");
    // Before Spring Security's chain (order -100), so that its 401 and 403 answers carry the CORS
    // headers too (a page then reads the refusal instead of a bare network error), and preflights
    // are answered without credentials, as browsers send them.
    registration.setOrder(-110);
    return registration;
  }
}
