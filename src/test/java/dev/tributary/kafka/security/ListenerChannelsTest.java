package dev.tributary.kafka.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.metadata.AdvertisedListener.SecurityProtocol;
import dev.tributary.security.Authorizer;
import dev.tributary.security.SecurityImage;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.SSLContext;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.network.PlaintextChannelBuilder;
import org.apache.kafka.common.network.SaslChannelBuilder;
import org.apache.kafka.common.network.SslChannelBuilder;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.junit.jupiter.api.Test;

/**
 * The listener's protocol follows authentication and TLS, and kafka-clients accepts the broker
 * configuration built for each (JAAS, callback handler, principal builder, SSL engine factory).
 * That the objects reach the classes it makes is shown end to end by {@code
 * auth.KafkaSecurityApiTest}.
 */
class ListenerChannelsTest {
  private static final ListenerName KAFKA = new ListenerName("KAFKA");
  private final Authorizer authorizer =
      new Authorizer(() -> SecurityImage.EMPTY, Map.of(), Set.of());

  private static ServerTls tls() throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, null, null);
    return new ServerTls(context, List.of(), List.of());
  }

  private static ChannelBuilder build(ListenerSecurity security) {
    return ListenerChannels.serverChannelBuilder(
        KAFKA, security, version -> new ApiVersionsResponse(new ApiVersionsResponseData()));
  }

  @Test
  void authenticationMeansSaslAndTlsMeansSsl() {
    assertThat(ListenerSecurity.protocolFor(false, false)).isEqualTo(SecurityProtocol.PLAINTEXT);
    assertThat(ListenerSecurity.protocolFor(false, true)).isEqualTo(SecurityProtocol.SSL);
    assertThat(ListenerSecurity.protocolFor(true, false))
        .isEqualTo(SecurityProtocol.SASL_PLAINTEXT);
    assertThat(ListenerSecurity.protocolFor(true, true)).isEqualTo(SecurityProtocol.SASL_SSL);
    assertThat(ListenerSecurity.PLAINTEXT.protocol()).isEqualTo(SecurityProtocol.PLAINTEXT);
  }

  @Test
  void eachProtocolGetsKafkaClientsChannelBuilderForIt() throws Exception {
    ServerTls tls = tls();
    Map<ListenerSecurity, Class<?>> expected =
        Map.of(
            ListenerSecurity.PLAINTEXT,
            PlaintextChannelBuilder.class,
            new ListenerSecurity(Optional.empty(), Optional.of(tls)),
            SslChannelBuilder.class,
            new ListenerSecurity(Optional.of(authorizer), Optional.empty()),
            SaslChannelBuilder.class,
            new ListenerSecurity(Optional.of(authorizer), Optional.of(tls)),
            SaslChannelBuilder.class);
    expected.forEach(
        (security, type) -> {
          ChannelBuilder builder = build(security);
          try {
            assertThat(builder).as(security.protocol().name()).isInstanceOf(type);
            assertThat(ListenerChannels.kafkaProtocol(security).name())
                .isEqualTo(security.protocol().name());
          } finally {
            builder.close();
          }
        });
  }

  @Test
  void theBrokersObjectsTravelInTheConfigurationUnparsed() throws Exception {
    ServerTls tls = tls();
    var config =
        ListenerChannels.config(
            KAFKA, new ListenerSecurity(Optional.of(authorizer), Optional.of(tls)));

    assertThat(config.originals().get(ListenerChannels.API_KEYS_CONFIG)).isSameAs(authorizer);
    assertThat(config.originals().get(ListenerChannels.TLS_CONFIG)).isSameAs(tls);
    assertThat(config.valuesWithPrefixOverride(KAFKA.configPrefix()))
        .containsEntry("plain.sasl.server.callback.handler.class", ApiKeyPlainCallbackHandler.class)
        .containsEntry("principal.builder.class", ApiKeyPrincipalBuilder.class)
        .containsEntry("ssl.engine.factory.class", ServerSslEngineFactory.class)
        .containsEntry("sasl.enabled.mechanisms", List.of("PLAIN"));
  }
}
