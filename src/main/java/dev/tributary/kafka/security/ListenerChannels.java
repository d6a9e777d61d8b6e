package dev.tributary.kafka.security;

import dev.tributary.security.Authorizer;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.internals.BrokerSecurityConfigs;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.ChannelBuilders;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;

/**
 * The Kafka listener's channel builders, from its {@link ListenerSecurity}: kafka-clients' own
 * server side does the TLS handshake and the SASL exchange (ApiVersions, SaslHandshake,
 * SaslAuthenticate) before a connection's first request reaches the listener, and refuses
 * everything else until the client has authenticated, as a Kafka broker does.
 *
 * <p>The configuration is a broker's, for a listener named {@code KAFKA}:
 *
 * <pre>
 * sasl.enabled.mechanisms=PLAIN
 * listener.name.kafka.plain.sasl.jaas.config=...PlainLoginModule required;
 * listener.name.kafka.plain.sasl.server.callback.handler.class=ApiKeyPlainCallbackHandler
 * principal.builder.class=ApiKeyPrincipalBuilder
 * ssl.engine.factory.class=ServerSslEngineFactory     (with TLS)
 * ssl.client.auth=none
 * </pre>
 *
 * kafka-clients makes those three classes by name, with no arguments. Their collaborators, the
 * broker's {@link Authorizer} and the {@link ServerTls}, are objects no class name can carry: they
 * travel in the same configuration, as originals under {@value #API_KEYS_CONFIG} and {@value
 * #TLS_CONFIG}, which {@code ChannelBuilders} passes through unparsed into the map every one of
 * those classes is configured with. So each listener (each broker in one JVM, in tests) has its own
 * key store and certificate, with no static registry.
 */
public final class ListenerChannels {
  /** The configs entry that holds the broker's {@link Authorizer} (SASL listeners). */
  static final String API_KEYS_CONFIG = "tributary.kafka.api-keys";

  /** The configs entry that holds the listener's {@link ServerTls} (TLS listeners). */
  static final String TLS_CONFIG = "tributary.kafka.server-tls";

  private static final String PLAIN = "PLAIN";
  private static final String PLAIN_LOGIN_MODULE =
      "org.apache.kafka.common.security.plain.PlainLoginModule required;";

  private ListenerChannels() {}

  /**
   * A new channel builder for one network thread of the listener {@code listener}.
   *
   * @param apiVersions what ApiVersions answers before authentication (kafka-clients' SASL server
   *     answers that request itself)
   */
  public static ChannelBuilder serverChannelBuilder(
      ListenerName listener,
      ListenerSecurity security,
      Function<Short, ApiVersionsResponse> apiVersions) {
    return ChannelBuilders.serverChannelBuilder(
        listener,
        false,
        kafkaProtocol(security),
        config(listener, security),
        null,
        null,
        Time.SYSTEM,
        new LogContext("[kafka-listener] "),
        apiVersions);
  }

  /** The listener's protocol as kafka-clients names it (the same names). */
  public static SecurityProtocol kafkaProtocol(ListenerSecurity security) {
    return SecurityProtocol.valueOf(security.protocol().name());
  }

  /** The broker configuration of {@code listener} that kafka-clients' channel builders read. */
  static AbstractConfig config(ListenerName listener, ListenerSecurity security) {
    Map<String, Object> originals = new HashMap<>();
    security
        .apiKeys()
        .ifPresent(
            apiKeys -> {
              // The server reads JAAS and callback handler configs only with the listener and
              // mechanism prefix (JaasContext.loadServerContext).
              String plain = listener.saslMechanismConfigPrefix(PLAIN);
              originals.put(BrokerSecurityConfigs.SASL_ENABLED_MECHANISMS_CONFIG, PLAIN);
              originals.put(plain + SaslConfigs.SASL_JAAS_CONFIG, PLAIN_LOGIN_MODULE);
              originals.put(
                  plain + BrokerSecurityConfigs.SASL_SERVER_CALLBACK_HANDLER_CLASS_CONFIG,
                  ApiKeyPlainCallbackHandler.class);
              originals.put(
                  BrokerSecurityConfigs.PRINCIPAL_BUILDER_CLASS_CONFIG,
                  ApiKeyPrincipalBuilder.class);
              originals.put(API_KEYS_CONFIG, apiKeys);
            });
    security
        .tls()
        .ifPresent(
            tls -> {
              originals.put(
                  SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG, ServerSslEngineFactory.class);
              originals.put(BrokerSecurityConfigs.SSL_CLIENT_AUTH_CONFIG, "none");
              originals.put(TLS_CONFIG, tls);
            });
    return new AbstractConfig(BrokerSecurityConfigs.CONFIG_DEF, originals, Map.of(), false);
  }

  static Authorizer apiKeys(Map<String, ?> configs) {
    if (configs.get(API_KEYS_CONFIG) instanceof Authorizer apiKeys) {
      return apiKeys;
    }
    throw new ConfigException(
        API_KEYS_CONFIG + " must hold the broker's Authorizer (see ListenerChannels)");
  }

  static ServerTls serverTls(Map<String, ?> configs) {
    if (configs.get(TLS_CONFIG) instanceof ServerTls tls) {
      return tls;
    }
    throw new ConfigException(TLS_CONFIG + " must hold the listener's ServerTls");
  }
}
