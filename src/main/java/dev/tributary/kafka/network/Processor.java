package dev.tributary.kafka.network;

import java.io.IOException;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.KafkaChannel;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.network.NetworkReceive;
import org.apache.kafka.common.network.NetworkSend;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One network thread of the Kafka listener (Kafka's SocketServer.Processor): owns a set of
 * connections in one kafka-clients {@link Selector}, which does the framing (4-byte size, payload),
 * TLS and the SASL handshake. For each complete request it parses the header, <b>mutes the
 * connection</b> (reads nothing more from it) and hands the request on; the connection is unmuted
 * once the response has been written, or at once when there is none ({@code acks=0}). So requests
 * on one connection are answered one at a time, in order, while a waiting request (a long-polling
 * fetch, a group join) holds no thread and stalls no other connection.
 *
 * <p>Concurrency: everything here runs on this processor's thread, except {@link #accept}, {@link
 * #respond}, {@link #noResponse} and {@link #closeConnection}, which queue work and wake the
 * selector.
 */
final class Processor implements Runnable {
  private static final Logger logger = LoggerFactory.getLogger(Processor.class);
  private static final long POLL_TIMEOUT_MS = 300;

  /**
   * How long a connection that failed authentication stays open (muted) after its error response,
   * Kafka's {@code connection.failed.authentication.delay.ms} default: the client reads why before
   * the close, and a client retrying bad credentials is slowed down.
   */
  private static final int FAILED_AUTHENTICATION_DELAY_MS = 100;

  private final int id;
  private final Selector selector;
  private final ListenerName listenerName;
  private final SecurityProtocol securityProtocol;
  private final Consumer<InboundRequest> requests;
  private final KafkaConnections connections;
  private final Queue<SocketChannel> newConnections = new ConcurrentLinkedQueue<>();
  private final Queue<Outbound> outbound = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private int nextConnectionIndex;

  /** What to do with a connection once a request was handled. */
  private sealed interface Outbound {
    String connectionId();
  }

  private record SendResponse(String connectionId, Send send) implements Outbound {}

  private record NoResponse(String connectionId) implements Outbound {}

  private record Close(String connectionId) implements Outbound {}

  private record Throttle(String connectionId, boolean start) implements Outbound {}

  /**
   * @param requests receives every request, on this thread; it must hand it off quickly
   * @param connections learns of every connection this processor opens and closes
   */
  Processor(
      int id,
      ChannelBuilder channelBuilder,
      ListenerName listenerName,
      SecurityProtocol securityProtocol,
      int maxRequestSizeBytes,
      long connectionsMaxIdleMs,
      Consumer<InboundRequest> requests,
      KafkaConnections connections) {
    this.id = id;
    this.listenerName = listenerName;
    this.securityProtocol = securityProtocol;
    this.requests = requests;
    this.connections = connections;
    LogContext logContext = new LogContext("[kafka-listener processor " + id + "] ");
    this.selector =
        new Selector(
            maxRequestSizeBytes,
            connectionsMaxIdleMs,
            FAILED_AUTHENTICATION_DELAY_MS,
            new org.apache.kafka.common.metrics.Metrics(),
            Time.SYSTEM,
            "kafka-listener",
            java.util.Map.of("processor", Integer.toString(id)),
            false,
            true,
            channelBuilder,
            org.apache.kafka.common.memory.MemoryPool.NONE,
            logContext) {
          /**
           * A close the processor asks for is not reported in {@link #disconnected()}: the registry
           * learns of it here, whichever code path closed the connection.
           */
          @Override
          public void close(String connectionId) {
            super.close(connectionId);
            connections.onClose(connectionId);
          }
        };
  }

  /** Takes a newly accepted connection (any thread). */
  void accept(SocketChannel channel) {
    newConnections.add(channel);
    selector.wakeup();
  }

  void respond(String connectionId, Send send) {
    outbound.add(new SendResponse(connectionId, send));
    selector.wakeup();
  }

  /** The request needs no response (acks=0): read the next one. */
  void noResponse(String connectionId) {
    outbound.add(new NoResponse(connectionId));
    selector.wakeup();
  }

  void closeConnection(String connectionId) {
    outbound.add(new Close(connectionId));
    selector.wakeup();
  }

  void shutdown() {
    running.set(false);
    selector.wakeup();
  }

  /** Open connections and their clients, for the dashboard. */
  java.util.List<KafkaChannel> channels() {
    return selector.channels();
  }

  @Override
  public void run() {
    try {
      while (running.get()) {
        try {
          configureNewConnections();
          processOutbound();
          poll();
          processCompletedReceives();
          processCompletedSends();
          processDisconnected();
        } catch (RuntimeException e) {
          logger.error("Kafka listener processor {} hit an unexpected error; it goes on", id, e);
        }
      }
    } finally {
      closeAll();
    }
  }

  private void configureNewConnections() {
    SocketChannel channel;
    while ((channel = newConnections.poll()) != null) {
      try {
        String connectionId = connectionId(channel.socket());
        selector.register(connectionId, channel);
        connections.onOpen(
            connectionId,
            channel.socket().getInetAddress(),
            channel.socket().getPort(),
            listenerName.value(),
            securityProtocol.name);
      } catch (IOException e) {
        logger.info("Could not register a connection from {}: {}", remote(channel), e.toString());
        closeQuietly(channel);
      }
    }
  }

  /** Kafka's id format {@code local:port-remote:port-index}: never reused while requests run. */
  private String connectionId(Socket socket) {
    return socket.getLocalAddress().getHostAddress()
        + ":"
        + socket.getLocalPort()
        + "-"
        + socket.getInetAddress().getHostAddress()
        + ":"
        + socket.getPort()
        + "-"
        + (nextConnectionIndex++ & Integer.MAX_VALUE);
  }

  private void processOutbound() {
    Outbound next;
    while ((next = outbound.poll()) != null) {
      String connectionId = next.connectionId();
      try {
        if (next instanceof SendResponse r) {
          // A connection the client or the idle timeout closed meanwhile has no channel: the
          // response is dropped.
          if (selector.channel(connectionId) != null
              || selector.closingChannel(connectionId) != null) {
            selector.send(new NetworkSend(connectionId, r.send()));
          }
        } else if (next instanceof NoResponse) {
          unmute(connectionId);
        } else if (next instanceof Throttle t) {
          KafkaChannel channel = selector.channel(connectionId);
          if (channel != null) {
            channel.handleChannelMuteEvent(
                t.start()
                    ? KafkaChannel.ChannelMuteEvent.THROTTLE_STARTED
                    : KafkaChannel.ChannelMuteEvent.THROTTLE_ENDED);
            if (!t.start()) {
              selector.unmute(connectionId);
            }
          }
        } else {
          selector.close(connectionId);
        }
      } catch (RuntimeException e) {
        logger.info("Closing Kafka connection {}: {}", connectionId, e.toString());
        selector.close(connectionId);
      }
    }
  }

  private void poll() {
    try {
      selector.poll(newConnections.isEmpty() ? POLL_TIMEOUT_MS : 0);
    } catch (IOException | IllegalStateException e) {
      logger.warn("Kafka listener processor {} poll failed", id, e);
    }
  }

  private void processCompletedReceives() {
    for (NetworkReceive receive : selector.completedReceives()) {
      String connectionId = receive.source();
      KafkaChannel channel = selector.channel(connectionId);
      if (channel == null) {
        continue; // closed meanwhile
      }
      try {
        RequestHeader header = RequestHeader.parse(receive.payload());
        if (header.apiKey() == org.apache.kafka.common.protocol.ApiKeys.SASL_HANDSHAKE
            && channel.maybeBeginServerReauthentication(receive, System::nanoTime)) {
          continue;
        }
        if (channel.serverAuthenticationSessionExpired(System.nanoTime())) {
          selector.close(connectionId);
          continue;
        }
        KafkaPrincipal principal = channel.principal(); // may fail: a deleted API key
        selector.mute(connectionId);
        channel.handleChannelMuteEvent(KafkaChannel.ChannelMuteEvent.REQUEST_RECEIVED);
        requests.accept(
            new InboundRequest(
                this,
                connectionId,
                header,
                receive.payload(),
                receive.size(),
                principal,
                channel.socketAddress(),
                listenerName,
                securityProtocol,
                channel.channelMetadataRegistry().clientInformation()));
      } catch (AuthenticationException e) {
        logger.info("Closing Kafka connection {}: {}", connectionId, e.getMessage());
        selector.close(connectionId);
      } catch (IOException | RuntimeException e) {
        // An unknown API key, a header that does not parse: Kafka closes the connection.
        logger.info(
            "Closing Kafka connection {}: unreadable request ({})", connectionId, e.getMessage());
        selector.close(connectionId);
      }
    }
    selector.clearCompletedReceives();
  }

  private void processCompletedSends() {
    for (NetworkSend send : selector.completedSends()) {
      unmute(send.destinationId());
    }
    selector.clearCompletedSends();
  }

  private void unmute(String connectionId) {
    KafkaChannel channel = selector.channel(connectionId);
    if (channel == null) {
      return;
    }
    channel.handleChannelMuteEvent(KafkaChannel.ChannelMuteEvent.RESPONSE_SENT);
    selector.unmute(connectionId); // unmutes only if no throttle keeps it muted
  }

  /** Holds the connection muted for a quota's throttle time after its response (KIP-219). */
  void startThrottling(String connectionId) {
    outbound.add(new Throttle(connectionId, true));
    selector.wakeup();
  }

  void endThrottling(String connectionId) {
    outbound.add(new Throttle(connectionId, false));
    selector.wakeup();
  }

  private void processDisconnected() {
    // The request layer learns of a closed connection when its response finds no channel.
    for (String connectionId : selector.disconnected().keySet()) {
      connections.onClose(connectionId);
    }
    selector.disconnected().clear();
  }

  private void closeAll() {
    for (KafkaChannel channel : selector.channels()) {
      selector.close(channel.id());
    }
    selector.close();
  }

  private static String remote(SocketChannel channel) {
    try {
      return String.valueOf(channel.getRemoteAddress());
    } catch (IOException e) {
      return "?";
    }
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // already gone
    }
  }
}
