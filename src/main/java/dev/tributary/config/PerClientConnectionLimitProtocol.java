package dev.tributary.config;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import org.apache.coyote.http11.Http11NioProtocol;
import org.apache.tomcat.util.net.NioEndpoint;
import org.apache.tomcat.util.net.SocketWrapperBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tomcat's NIO HTTP/1.1 protocol with a cap on the connections one remote address may hold open
 * ({@code tributary.max-connections-per-client}); Tomcat's own {@code maxConnections} (8192) is
 * global. Checked when a connection is accepted, before Tomcat reads a byte of it: one more than
 * the cap is answered with a fixed 429 42903 in the API's JSON shape and closed. Counted by remote
 * address, since no principal is known before a request is read.
 *
 * <p>The count walks Tomcat's set of open connections (at most {@code maxConnections}) on each
 * accept, on Tomcat's single acceptor thread, so counting and admitting cannot race.
 */
public class PerClientConnectionLimitProtocol extends Http11NioProtocol {
  public PerClientConnectionLimitProtocol() {
    super(new LimitedEndpoint());
  }

  public void setMaxConnectionsPerClient(int maxConnectionsPerClient) {
    ((LimitedEndpoint) getEndpoint()).maxConnectionsPerClient = maxConnectionsPerClient;
  }

  private static final class LimitedEndpoint extends NioEndpoint {
    private static final Logger logger = LoggerFactory.getLogger(LimitedEndpoint.class);
    private volatile int maxConnectionsPerClient = Integer.MAX_VALUE;

    @Override
    protected boolean setSocketOptions(SocketChannel socket) {
      String address = remoteAddress(socket);
      if (address != null && connectionsFrom(address) >= maxConnectionsPerClient) {
        refuse(socket, address);
        // Closes it and gives back its slot in maxConnections. The acceptor's own closeSocket
        // finds no connection registered for it and does nothing, so this happens once.
        destroySocket(socket);
        return false;
      }
      return super.setSocketOptions(socket);
    }

    private int connectionsFrom(String address) {
      int count = 0;
      for (SocketWrapperBase<?> wrapper : getConnections()) {
        if (address.equals(wrapper.getRemoteAddr())) {
          count++;
        }
      }
      return count;
    }

    private static String remoteAddress(SocketChannel socket) {
      try {
        SocketAddress remote = socket.getRemoteAddress();
        return remote instanceof InetSocketAddress inet ? inet.getAddress().getHostAddress() : null;
      } catch (IOException e) {
        return null;
      }
    }

    /** A best-effort answer: one small write to a fresh socket, whose send buffer is empty. */
    private void refuse(SocketChannel socket, String address) {
      logger.debug(
          "Refused a connection from {}: it already has {} open, as many as"
              + " tributary.max-connections-per-client allows",
          address,
          maxConnectionsPerClient);
      String body =
          "{\"error_code\":42903,\"message\":\""
              + address
              + " already has "
              + maxConnectionsPerClient
              + " connections open, as many as tributary.max-connections-per-client allows;"
              + " reuse them (keep-alive) or close some\"}";
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      String head =
          "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n"
              + "Retry-After: 1\r\nConnection: close\r\nContent-Length: "
              + bytes.length
              + "\r\n\r\n";
      try {
        socket.configureBlocking(false);
        ByteBuffer out = ByteBuffer.allocate(head.length() + bytes.length);
        out.put(head.getBytes(StandardCharsets.US_ASCII)).put(bytes).flip();
        socket.write(out);
      } catch (IOException e) {
        // the client is gone already; closing is all that is left
      }
    }
  }
}
