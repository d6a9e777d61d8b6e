package dev.tributary.auth;

import dev.tributary.common.Time;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ApiKey;
import dev.tributary.security.Authorizer;
import dev.tributary.server.AccessControl;
import dev.tributary.server.BrokerServer;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.DispatcherType;
import java.security.SecureRandom;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import tools.jackson.databind.json.JsonMapper;

/**
 * Spring Security for the broker's HTTP listener: who may call what (docs/security.md has the
 * table). Stateless: no HTTP session, no CSRF token (API clients send credentials on every call;
 * the dashboard's cookie is SameSite=Strict and its actions check the page's origin).
 */
@Configuration
class SecurityConfiguration {
  private static final Logger logger = LoggerFactory.getLogger(SecurityConfiguration.class);

  @Bean
  Authorizer authorizer(BrokerServer broker, SecurityProperties properties) {
    Set<String> superUsers = new HashSet<>(properties.superUsers());
    // Other brokers, forwarding with the cluster secret (Kafka's inter-broker principal is a super
    // user too).
    superUsers.add(RequestPrincipal.BROKER);
    return new Authorizer(
        () -> broker.metadata().security(), bootstrapKeys(properties), superUsers);
  }

  /**
   * No Micrometer observation per security filter: they timed each of the chain's filters on every
   * request and cost about an eighth of a produce's broker CPU (docs/benchmarks.md), while the
   * request as a whole is still timed ({@code http.server.requests}) and refusals are counted
   * ({@link SecurityErrors}).
   */
  @Bean
  static SecurityObservationSettings securityObservationSettings() {
    return SecurityObservationSettings.noObservations();
  }

  @Bean
  SecurityErrors securityErrors(JsonMapper json, MeterRegistry meters) {
    return new SecurityErrors(json, meters);
  }

  /** The services' authorisation checks, one instance for every protocol. */
  @Bean
  AccessControl accessControl(
      Authorizer authorizer, SecurityProperties properties, SecurityErrors errors) {
    return new AccessControl(authorizer, properties.enabled(), () -> errors.count("forbidden"));
  }

  @Bean
  AccessGuard accessGuard(AccessControl accessControl) {
    return new AccessGuard(accessControl);
  }

  @Bean
  RequestContexts requestContexts(BrokerServer broker) {
    return new RequestContexts(() -> broker.config().clusterSecret());
  }

  @Bean
  DashboardSessions dashboardSessions(
      BrokerServer broker, SecurityProperties properties, Time brokerTime) {
    String secret = broker.config().clusterSecret();
    if (secret == null || secret.isEmpty()) {
      // A lone broker: sign-ins hold on this process only.
      secret = dev.tributary.security.ApiKeySecrets.newSecret(new SecureRandom());
    }
    return new DashboardSessions(
        secret, brokerTime, properties.dashboardSessionMinutes() * 60_000L);
  }

  /**
   * Spring Security's firewall refuses paths with {@code ..}, encoded slashes, {@code ;} and the
   * like before anything else runs; answer that in the API's error shape too (400 40006).
   */
  @Bean
  RequestRejectedHandler requestRejectedHandler(SecurityErrors errors) {
    return (request, response, rejected) ->
        errors.badRequest(
            response,
            40006,
            "The request path or header is not allowed (relative or encoded segments, or"
                + " characters outside what URLs and headers may hold)");
  }

  @Bean
  SecurityFilterChain tributarySecurity(
      HttpSecurity http,
      SecurityProperties properties,
      Authorizer authorizer,
      BrokerServer broker,
      DashboardSessions sessions,
      SecurityErrors errors,
      ClusterOrigins origins)
      throws Exception {
    http.csrf(csrf -> csrf.disable())
        .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .httpBasic(basic -> basic.disable())
        .formLogin(form -> form.disable())
        .logout(logout -> logout.disable())
        .requestCache(cache -> cache.disable())
        .exceptionHandling(
            e ->
                e.authenticationEntryPoint(
                        (request, response, ex) -> {
                          if (RequestPaths.isInternal(request)) {
                            errors.noClusterSecret(request, response);
                          } else {
                            errors.unauthenticated(
                                request,
                                response,
                                40102,
                                "Authentication is required: send an API key as 'Authorization:"
                                    + " Bearer <key_id>.<secret>' or HTTP basic");
                          }
                        })
                    .accessDeniedHandler(
                        (request, response, ex) -> {
                          // An API key is no substitute for the cluster secret.
                          if (RequestPaths.isInternal(request)) {
                            errors.noClusterSecret(request, response);
                          } else {
                            errors.forbidden(request, response);
                          }
                        }));
    if (!properties.enabled()) {
      logger.warn(
          "Client authentication is OFF (tributary.security.enabled=false): anyone who reaches"
              + " this broker's HTTP port may produce, read and administer. Broker-to-broker calls"
              + " still need the cluster secret.");
      return http.authorizeHttpRequests(a -> a.anyRequest().permitAll()).build();
    }
    logger.info(
        "Client authentication is on: API keys (bearer or basic) and ACLs; super users {}",
        properties.superUsers());
    http.addFilterBefore(
        new CredentialsFilter(
            authorizer, () -> broker.config().clusterSecret(), sessions, errors, origins),
        AnonymousAuthenticationFilter.class);
    AccessRules rules = new AccessRules(authorizer);
    String v3 = "/v3/clusters/{clusterId}";
    http.authorizeHttpRequests(
        a ->
            a.dispatcherTypeMatchers(
                    DispatcherType.ASYNC, DispatcherType.ERROR, DispatcherType.FORWARD)
                .permitAll()
                .requestMatchers(HttpMethod.OPTIONS, "/**")
                .permitAll()
                // The cluster secret guards these (InternalAuthFilter); checked here too, on the
                // path as MVC routes it (decoded).
                .requestMatchers("/internal/**")
                .access(rules.clusterSecret(() -> broker.config().clusterSecret()))
                .requestMatchers(
                    "/actuator/health",
                    "/actuator/health/**",
                    "/login",
                    "/logout",
                    "/dashboard.css",
                    "/js/**",
                    "/favicon.ico",
                    "/favicon.svg")
                .permitAll()
                // Produce and read, by topic.
                .requestMatchers(
                    HttpMethod.POST, "/topics/{topic}", "/topics/{topic}/partitions/{partition}")
                .access(rules.topic(AclOperation.WRITE))
                // Any other method on a topic's paths (GET, and HEAD, which MVC answers with the
                // GET handlers) reads.
                .requestMatchers("/topics/{topic}", "/topics/{topic}/**")
                .access(rules.topic(AclOperation.READ))
                // Consumers, by group (their topics are checked when they subscribe or assign).
                .requestMatchers("/consumers/{group}", "/consumers/{group}/**")
                .access(rules.group(AclOperation.READ, "group"))
                // Admin v3.
                .requestMatchers(
                    v3 + "/acls", v3 + "/acls/**", v3 + "/api-keys", v3 + "/api-keys/**")
                .access(rules.cluster(AclOperation.ADMIN))
                // REST Proxy v3's produce writes to the topic; the rest of a topic's v3 paths
                // read or administer it.
                .requestMatchers(HttpMethod.POST, v3 + "/topics/{topic}/records")
                .access(rules.topic(AclOperation.WRITE))
                .requestMatchers(HttpMethod.GET, v3 + "/topics/{topic}", v3 + "/topics/{topic}/**")
                .access(rules.topic(AclOperation.READ))
                .requestMatchers(HttpMethod.HEAD, v3 + "/topics/{topic}", v3 + "/topics/{topic}/**")
                .access(rules.topic(AclOperation.READ))
                .requestMatchers(v3 + "/topics/{topic}", v3 + "/topics/{topic}/**")
                .access(rules.topic(AclOperation.ADMIN))
                .requestMatchers(
                    v3 + "/consumer-groups/{groupId}", v3 + "/consumer-groups/{groupId}/**")
                .access(rules.group(AclOperation.READ, "groupId"))
                // The dashboard: the page and its socket for readers, fault actions for admins.
                .requestMatchers("/dashboard/actions/**")
                .access(rules.cluster(AclOperation.ADMIN))
                .requestMatchers("/", "/dashboard/**", "/actuator/**")
                .access(rules.cluster(AclOperation.READ))
                // Lists (filtered to what the caller may see), cluster and broker views, topic
                // creation (checked against the body's topic name), whoami.
                .anyRequest()
                .access(rules.authenticated()));
    return http.build();
  }

  private static Map<String, ApiKey> bootstrapKeys(SecurityProperties properties) {
    String spec = properties.bootstrapApiKey();
    if (spec == null || spec.isBlank()) {
      return Map.of();
    }
    int colon = spec.indexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException(
          "tributary.security.bootstrap-api-key must be <key_id>:<sha256 of the secret, hex>");
    }
    ApiKey key =
        new ApiKey(
            spec.substring(0, colon),
            properties.bootstrapPrincipal(),
            spec.substring(colon + 1).trim().toLowerCase(java.util.Locale.ROOT),
            "bootstrap key (tributary.security.bootstrap-api-key)",
            0);
    return Map.of(key.keyId(), key);
  }
}
