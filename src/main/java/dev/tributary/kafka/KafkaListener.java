package dev.tributary.kafka;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.kafka.network.KafkaSocketServer;
import dev.tributary.kafka.security.ListenerChannels;
import dev.tributary.kafka.security.ListenerSecurity;
import dev.tributary.server.AccessControl;
import dev.tributary.server.AdminService;
import dev.tributary.server.AutoTopicCreator;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.ClientConnections;
import dev.tributary.server.FetchService;
import dev.tributary.server.GroupServices;
import dev.tributary.server.LogDirsService;
import dev.tributary.server.MetadataCache;
import dev.tributary.server.OffsetsService;
import dev.tributary.server.ProduceService;
import dev.tributary.server.ProducerIdService;
import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.network.KafkaChannel;
import org.apache.kafka.common.network.ListenerName;

/**
 * The broker's Kafka listener: Kafka's wire protocol on its own port, a second adapter over the
 * same broker services the REST API calls. It binds when built (so its port is known before the
 * broker registers and advertises it) and serves once the broker does (requests before that are
 * answered with BROKER_NOT_AVAILABLE-style errors by the services). Its security follows the
 * broker's ({@link ListenerSecurity}): SASL/PLAIN with the API keys when authentication is on, TLS
 * when the HTTP listener has it.
 *
 * <p>Threads: the socket server's acceptor and network threads, and {@code
 * tributary-kafka-handler-N} running requests; all stopped by {@link #close}.
 */
public final class KafkaListener implements AutoCloseable {
  /** The listener's name in registrations and in Kafka's {@code listener.name.*} configs. */
  public static final String NAME = MetadataApi.KAFKA_LISTENER;

  private final KafkaSocketServer sockets;
  private final ExecutorService handlers;

  /** What the listener needs: its bound socket and limits. */
  public record Settings(
      ServerSocketChannel socket,
      int networkThreads,
      int handlerThreads,
      int maxRequestSizeBytes,
      long connectionsMaxIdleMs) {}

  /** The broker services the Kafka APIs call, and the broker's clock. */
  public record Services(
      MetadataCache metadata,
      BrokerConfig config,
      AccessControl access,
      ProduceService produce,
      FetchService fetch,
      OffsetsService offsets,
      AutoTopicCreator autoTopics,
      ProducerIdService producerIds,
      GroupServices groups,
      Scheduler scheduler,
      AdminService admin,
      LogDirsService logDirs,
      Time time) {}

  /**
   * @param security PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL ({@link ListenerSecurity}); the
   *     broker registers the same
   */
  public KafkaListener(Settings settings, Services services, ListenerSecurity security)
      throws IOException {
    AtomicInteger threadCount = new AtomicInteger();
    handlers =
        Executors.newFixedThreadPool(
            settings.handlerThreads(),
            runnable -> {
              Thread thread =
                  new Thread(runnable, "tributary-kafka-handler-" + threadCount.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    List<ApiHandler> handlerList =
        new ArrayList<>(
            List.of(
                new MetadataApi(
                    services.metadata(),
                    services.access(),
                    services.autoTopics(),
                    services.config()),
                new ProduceApi(services.produce(), services.metadata()),
                new FetchApi(services.fetch(), services.metadata()),
                new OffsetsApi(services.offsets()),
                new OffsetForLeaderEpochApi(services.offsets()),
                new InitProducerIdApi(services.producerIds()),
                new SaslApis.Handshake(),
                new SaslApis.Authenticate()));
    handlerList.addAll(
        AdminApis.of(services.admin(), services.logDirs(), services.metadata(), services.access()));
    handlerList.addAll(
        GroupBackend.of(services.groups(), services.metadata(), services.access()).apis());
    KafkaApis apis = new KafkaApis(handlerList, handlers, services.scheduler());
    ListenerName listenerName = new ListenerName(NAME);
    sockets =
        new KafkaSocketServer(
            settings.socket(),
            settings.networkThreads(),
            () ->
                ListenerChannels.serverChannelBuilder(
                    listenerName, security, apis::apiVersionsResponse),
            listenerName,
            ListenerChannels.kafkaProtocol(security),
            settings.maxRequestSizeBytes(),
            settings.connectionsMaxIdleMs(),
            apis,
            services.time());
  }

  /** Binds the listener's port before the broker is built; see {@link KafkaSocketServer#bind}. */
  public static ServerSocketChannel bind(String host, int port) throws IOException {
    return KafkaSocketServer.bind(host, port);
  }

  /** The port bound (the configured one, or the system's choice for 0). */
  public int port() {
    return sockets.port();
  }

  /** Open client connections. */
  public List<KafkaChannel> connections() {
    return sockets.channels();
  }

  /** Its open connections and their clients, for the dashboard ({@link ClientConnections}). */
  public ClientConnections clientConnections() {
    return sockets.connections();
  }

  @Override
  public void close() {
    sockets.close();
    handlers.shutdownNow();
  }
}
