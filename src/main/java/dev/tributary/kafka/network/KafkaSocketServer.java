package dev.tributary.kafka.network;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.KafkaChannel;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka listener's sockets (Kafka's SocketServer): one acceptor thread and {@code processors}
 * network threads, each with its own selector; new connections go to the processors in turn.
 * Requests are handed to {@code requests}; see {@link Processor} for ordering and muting. Every
 * open connection, and every request on it, is counted in {@link #connections()}.
 *
 * <p>Threads: {@code tributary-kafka-acceptor}, {@code tributary-kafka-network-N}; all daemons,
 * stopped by {@link #close}.
 */
public final class KafkaSocketServer implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(KafkaSocketServer.class);

  private final ServerSocketChannel serverChannel;
  private final java.nio.channels.Selector acceptSelector;
  private final List<Processor> processors = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final KafkaConnections connections;
  private volatile boolean running = true;

  /**
   * Binds {@code host:port} (port 0: any free one), so that the port is known before anything is
   * served; {@link KafkaSocketServer#KafkaSocketServer} then serves on it.
   */
  public static ServerSocketChannel bind(String host, int port) throws IOException {
    ServerSocketChannel channel = ServerSocketChannel.open();
    try {
      channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      channel.bind(new InetSocketAddress(host, port), 128);
      channel.configureBlocking(false);
      return channel;
    } catch (IOException e) {
      channel.close();
      throw new IOException("cannot listen for Kafka clients on " + host + ":" + port, e);
    }
  }

  /**
   * Starts serving on {@code serverChannel} (from {@link #bind}).
   *
   * @param channelBuilders one channel builder per processor (each owns its builder, as Kafka's)
   * @param time the broker's clock, for when each connection opened and last sent a request (the
   *     dashboard's client list); kafka-clients' selector keeps its own system clock
   */
  public KafkaSocketServer(
      ServerSocketChannel serverChannel,
      int processorCount,
      Supplier<ChannelBuilder> channelBuilders,
      ListenerName listenerName,
      SecurityProtocol securityProtocol,
      int maxRequestSizeBytes,
      long connectionsMaxIdleMs,
      Consumer<InboundRequest> requests,
      dev.tributary.common.Time time)
      throws IOException {
    this.serverChannel = serverChannel;
    this.connections = new KafkaConnections(time);
    acceptSelector = java.nio.channels.Selector.open();
    serverChannel.register(acceptSelector, SelectionKey.OP_ACCEPT);
    Consumer<InboundRequest> counted =
        request -> {
          connections.onRequest(request);
          requests.accept(request);
        };
    for (int i = 0; i < processorCount; i++) {
      Processor processor =
          new Processor(
              i,
              channelBuilders.get(),
              listenerName,
              securityProtocol,
              maxRequestSizeBytes,
              connectionsMaxIdleMs,
              counted,
              connections);
      processors.add(processor);
      start(processor, "tributary-kafka-network-" + i);
    }
    start(this::acceptLoop, "tributary-kafka-acceptor");
  }

  private void start(Runnable body, String name) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    thread.start();
    threads.add(thread);
  }

  /** The port this listener bound. */
  public int port() {
    return serverChannel.socket().getLocalPort();
  }

  /** Every open connection with its client, and its requests so far, for the dashboard. */
  public KafkaConnections connections() {
    return connections;
  }

  /** Every open connection, for the dashboard and tests. */
  public List<KafkaChannel> channels() {
    List<KafkaChannel> all = new ArrayList<>();
    processors.forEach(p -> all.addAll(p.channels()));
    return all;
  }

  private void acceptLoop() {
    int next = 0;
    while (running) {
      try {
        acceptSelector.select(500);
        for (SelectionKey key : acceptSelector.selectedKeys()) {
          if (key.isAcceptable()) {
            SocketChannel channel;
            while ((channel = serverChannel.accept()) != null) {
              channel.configureBlocking(false);
              channel.socket().setTcpNoDelay(true);
              channel.socket().setKeepAlive(true);
              processors.get(next++ % processors.size()).accept(channel);
            }
          }
        }
        acceptSelector.selectedKeys().clear();
      } catch (IOException | RuntimeException e) {
        if (running) {
          logger.warn("Kafka listener: accepting failed; going on", e);
        }
      }
    }
  }

  @Override
  public void close() {
    running = false;
    processors.forEach(Processor::shutdown);
    try {
      acceptSelector.wakeup();
      serverChannel.close();
    } catch (IOException e) {
      logger.debug("closing the Kafka listener's socket", e);
    }
    for (Thread thread : threads) {
      try {
        thread.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    try {
      acceptSelector.close();
    } catch (IOException ignored) {
      // closing
    }
  }
}
