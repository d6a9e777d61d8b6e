package dev.tributary.web;

import dev.tributary.server.ClientConnections.ClientConnection;
import java.util.List;

/**
 * This broker's Kafka client connections as {@link LocalSnapshot} rows. Pure: tested with hand-made
 * {@link ClientConnection}s.
 *
 * <p>Unlike groups, these rows move with the traffic: every request bumps its connection's count
 * and clock, so a broker with busy clients answers new bytes on every poll. A connection that sends
 * nothing (an idle producer between metadata refreshes) keeps its bytes.
 */
final class LocalClients {
  private LocalClients() {}

  /**
   * How many connections one broker's answer lists (the oldest; the count says how many are open):
   * a learner's cluster has a handful, and a broker with thousands must not send them all five
   * times a second.
   */
  static final int MAX_CONNECTIONS = 100;

  /** The oldest {@link #MAX_CONNECTIONS} of {@code open} (which is oldest first). */
  static List<LocalSnapshot.LocalConnection> connections(List<ClientConnection> open) {
    return open.stream().limit(MAX_CONNECTIONS).map(LocalClients::row).toList();
  }

  static LocalSnapshot.LocalConnection row(ClientConnection c) {
    return new LocalSnapshot.LocalConnection(
        c.connectionId(),
        c.listener(),
        c.securityProtocol(),
        c.clientAddress(),
        c.clientId(),
        c.softwareName(),
        c.softwareVersion(),
        c.principal(),
        c.connectedSinceMs(),
        c.lastRequestMs(),
        c.requestsByApi());
  }
}
