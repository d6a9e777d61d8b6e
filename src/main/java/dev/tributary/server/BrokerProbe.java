package dev.tributary.server;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * Checks whether a broker's process is still there: a TCP connect to its HTTP port. Only a refused
 * connection counts as "gone" (the port has no listener: the process died, or is stopping); a
 * timeout or any other failure proves nothing. See docs/adr/0010-failure-detection.md.
 */
public interface BrokerProbe {
  boolean refusesConnections(String host, int port);

  /** A TCP connect with a short timeout. */
  static BrokerProbe tcp(int timeoutMs) {
    return (host, port) -> {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, port), timeoutMs);
        return false;
      } catch (ConnectException e) {
        return true;
      } catch (IOException e) {
        return false;
      }
    };
  }
}
