package dev.tributary.config;

import dev.tributary.common.Time;
import dev.tributary.quota.ClientQuotaManager;
import java.util.List;
import org.apache.catalina.Valve;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Scope;
import org.springframework.util.unit.DataSize;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Limits that live below the controllers (docs/security.md "Limits"): the JSON nesting depth of
 * every request body, Tomcat's header count and per-client connection cap, and the produce quota
 * manager.
 */
@Configuration(proxyBeanMethods = false)
class LimitsConfiguration {
  static final int MIN_SOCKET_WRITE_BUFFER_BYTES = 1024;
  static final int MAX_SOCKET_WRITE_BUFFER_BYTES = 1024 * 1024;

  /**
   * Replaces Spring Boot's {@code JsonMapper.Builder} (same customizers) with one whose parser
   * stops at {@code tributary.max-json-nesting-depth} levels (Jackson's default is 500): a builder
   * cannot change its stream factory afterwards, so a customizer alone cannot set the bound. Every
   * JSON request body is read by the mapper built from it.
   */
  @Bean
  @Scope("prototype")
  JsonMapper.Builder jsonMapperBuilder(
      List<JsonMapperBuilderCustomizer> customizers,
      @Value("${tributary.max-json-nesting-depth:64}") int maxJsonNestingDepth) {
    JsonFactory factory =
        JsonFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder().maxNestingDepth(maxJsonNestingDepth).build())
            .build();
    JsonMapper.Builder builder = JsonMapper.builder(factory);
    customizers.forEach(customizer -> customizer.customize(builder));
    return builder;
  }

  /**
   * Tomcat: its own refusals in the API's JSON shape ({@link JsonErrorReportValve}), at most {@code
   * tributary.max-http-header-count} request headers (Tomcat's {@code maxHeaderCount}, 100 by
   * default), and at most {@code tributary.max-connections-per-client} connections from one remote
   * address ({@link PerClientConnectionLimitProtocol}).
   *
   * <p>Also each connection's socket buffers: Tomcat copies every byte of an answer into the
   * connection's write buffer and writes the socket one buffer at a time, so with its default of 8
   * KiB a 2.4 MB record read took about 300 {@code write} calls, and the JDK copied each heap
   * buffer once more into a direct one on the way. Direct buffers of {@code
   * tributary.socket-write-buffer-bytes} (32 KiB) take a quarter of the calls and no second copy on
   * plain HTTP (docs/benchmarks.md, stop 34); TLS writes one record of at most 16 KiB per call
   * whatever this says. The memory this costs per connection is in docs/security.md "Limits".
   */
  @Bean
  WebServerFactoryCustomizer<TomcatServletWebServerFactory> tomcatLimits(
      @Value("${server.max-http-request-header-size:8KB}") DataSize maxHttpRequestHeaderSize,
      @Value("${tributary.max-http-header-count:100}") int maxHttpHeaderCount,
      @Value("${tributary.max-connections-per-client:256}") int maxConnectionsPerClient,
      @Value("${tributary.socket-write-buffer-bytes:32768}") int socketWriteBufferBytes) {
    if (socketWriteBufferBytes < MIN_SOCKET_WRITE_BUFFER_BYTES
        || socketWriteBufferBytes > MAX_SOCKET_WRITE_BUFFER_BYTES) {
      throw new IllegalArgumentException(
          "tributary.socket-write-buffer-bytes must be between "
              + MIN_SOCKET_WRITE_BUFFER_BYTES
              + " and "
              + MAX_SOCKET_WRITE_BUFFER_BYTES
              + ", got "
              + socketWriteBufferBytes);
    }
    return factory -> {
      factory.addConnectorCustomizers(
          connector -> {
            connector.setProperty("socket.directBuffer", "true");
            connector.setProperty(
                "socket.appWriteBufSize", Integer.toString(socketWriteBufferBytes));
          });
      factory.addContextCustomizers(
          context -> {
            // Replaces Spring Boot's HTML ErrorReportValve; naming the class keeps the host from
            // adding Tomcat's default one at start.
            if (context.getParent() instanceof StandardHost host) {
              for (Valve valve : host.getPipeline().getValves()) {
                if (valve instanceof ErrorReportValve) {
                  host.getPipeline().removeValve(valve);
                }
              }
              host.setErrorReportValveClass(JsonErrorReportValve.class.getName());
              host.getPipeline()
                  .addValve(
                      new JsonErrorReportValve(
                          maxHttpRequestHeaderSize.toBytes() + " bytes", maxHttpHeaderCount));
            }
          });
      factory.setProtocol(PerClientConnectionLimitProtocol.class.getName());
      factory.addProtocolHandlerCustomizers(
          handler -> {
            if (handler instanceof PerClientConnectionLimitProtocol protocol) {
              protocol.setMaxHeaderCount(maxHttpHeaderCount);
              protocol.setMaxConnectionsPerClient(maxConnectionsPerClient);
            }
          });
    };
  }

  @Bean
  ClientQuotaManager clientQuotaManager(QuotaProperties properties, Time brokerTime) {
    return new ClientQuotaManager(properties.toConfig(), brokerTime);
  }
}
