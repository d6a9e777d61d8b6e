package dev.tributary.config;

import dev.tributary.kafka.KafkaListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ServerSocketChannel;
import java.util.Optional;

/**
 * The Kafka listener's socket, bound while the context starts so that the broker can advertise its
 * port (a configured 0 becomes the system's choice) before it registers; the listener serves on it
 * once the broker's services exist. Empty when {@code tributary.kafka.enabled=false}.
 */
final class KafkaPort implements AutoCloseable {
  private final ServerSocketChannel channel;

  private KafkaPort(ServerSocketChannel channel) {
    this.channel = channel;
  }

  static KafkaPort bind(TributaryProperties properties, String host) {
    TributaryProperties.Kafka kafka = properties.kafka();
    if (!kafka.enabled()) {
      return new KafkaPort(null);
    }
    int port = kafka.port() != null ? kafka.port() : 9091 + properties.brokerId();
    try {
      return new KafkaPort(KafkaListener.bind(host, port));
    } catch (IOException e) {
      throw new UncheckedIOException(
          e.getMessage()
              + " (is another process on it? tributary.kafka.port sets another port, 0 any free"
              + " one; tributary.kafka.enabled=false turns the listener off)",
          e);
    }
  }

  Optional<ServerSocketChannel> channel() {
    return Optional.ofNullable(channel);
  }

  /** The port it listens on; -1 when there is no Kafka listener. */
  int port() {
    return channel == null ? -1 : channel.socket().getLocalPort();
  }

  @Override
  public void close() throws IOException {
    if (channel != null) {
      channel.close();
    }
  }
}
