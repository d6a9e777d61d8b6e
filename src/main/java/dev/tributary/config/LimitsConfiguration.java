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
   * buffer once more into a direct one on the way. {@code tributary.http.socket-write-buffer} (32
   * KiB) direct buffers take a quarter of the calls and no second copy (docs/benchmarks.md, stop
   * 34). They are allocated per open connection: at Tomcat's 8,192 connections, 320 MiB of direct
   * memory (32 KiB written, 8 KiB read) against 128 MiB of heap before.
   */
  @Bean
  WebServerFactoryCustomizer<TomcatServletWebServerFactory> tomcatLimits(
      @Value("${server.max-http-request-header-size:8KB}") DataSize maxHttpRequestHeaderSize,
      @Value("${tributary.max-http-header-count:100}") int maxHttpHeaderCount,
      @Value("${tributary.max-connections-per-client:256}") int maxConnectionsPerClient,
      @Value("${tributary.http.socket-write-buffer:32KB}") DataSize socketWriteBuffer) {
    if (socketWriteBuffer.toBytes() < 1024 || socketWriteBuffer.toBytes() > 1024 * 1024) {
      throw new IllegalArgumentException(
          "tributary.http.socket-write-buffer must be between 1KB and 1MB, got "
              + socketWriteBuffer);
    }
    return factory -> {
      factory.addConnectorCustomizers(
          connector -> {
            connector.setProperty("socket.directBuffer", "true");
            connector.setProperty(
                "socket.appWriteBufSize", Long.toString(socketWriteBuffer.toBytes()));
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
