package dev.tributary.metadata.ratis;

import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Parses a quorum member list in the format of Kafka's {@code controller.quorum.voters}: {@code
 * 1@127.0.0.1:9191,2@127.0.0.1:9192,3@[::1]:9193} — broker id, {@code @}, host, {@code :}, port;
 * IPv6 hosts in brackets. The same format serves the list of Ratis listeners.
 *
 * <p>Addresses are returned unresolved (no DNS lookup while parsing); {@link
 * InetSocketAddress#getHostString()} is the host as written.
 */
public final class QuorumVoters {
  private QuorumVoters() {}

  /**
   * Returns broker id → address, sorted by id. Throws {@link IllegalArgumentException} naming the
   * bad entry on an empty list, a malformed entry, a negative or non-numeric id, a port outside
   * 1–65535, or a duplicate id or address.
   */
  public static Map<Integer, InetSocketAddress> parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException(
          "quorum voters must not be empty; expected id@host:port[,id@host:port...]");
    }
    TreeMap<Integer, InetSocketAddress> voters = new TreeMap<>();
    Map<String, Integer> idsByAddress = new HashMap<>();
    for (String rawEntry : text.split(",", -1)) {
      String entry = rawEntry.strip();
      int at = entry.indexOf('@');
      if (at <= 0 || at == entry.length() - 1) {
        throw invalid(entry, "expected id@host:port");
      }
      int id = parseId(entry, entry.substring(0, at));
      InetSocketAddress address = parseAddress(entry, entry.substring(at + 1));
      if (voters.containsKey(id)) {
        throw invalid(entry, "duplicate id " + id);
      }
      String key = address.getHostString() + ":" + address.getPort();
      Integer other = idsByAddress.putIfAbsent(key, id);
      if (other != null) {
        throw invalid(entry, "address " + key + " is also used by id " + other);
      }
      voters.put(id, address);
    }
    return Collections.unmodifiableSortedMap(voters);
  }

  private static int parseId(String entry, String text) {
    try {
      int id = Integer.parseInt(text.strip());
      if (id < 0) {
        throw invalid(entry, "id must not be negative");
      }
      return id;
    } catch (NumberFormatException e) {
      throw invalid(entry, "id '" + text + "' is not a number");
    }
  }

  private static InetSocketAddress parseAddress(String entry, String text) {
    String host;
    String portText;
    if (text.startsWith("[")) {
      int close = text.indexOf(']');
      if (close < 0 || close + 1 >= text.length() || text.charAt(close + 1) != ':') {
        throw invalid(entry, "expected [ipv6-host]:port");
      }
      host = text.substring(1, close);
      portText = text.substring(close + 2);
    } else {
      int colon = text.lastIndexOf(':');
      if (colon < 0) {
        throw invalid(entry, "missing :port");
      }
      host = text.substring(0, colon);
      portText = text.substring(colon + 1);
      if (host.indexOf(':') >= 0) {
        throw invalid(entry, "an IPv6 host must be written in brackets, e.g. 1@[::1]:9191");
      }
    }
    if (host.isBlank()) {
      throw invalid(entry, "missing host");
    }
    int port;
    try {
      port = Integer.parseInt(portText);
    } catch (NumberFormatException e) {
      throw invalid(entry, "port '" + portText + "' is not a number");
    }
    if (port < 1 || port > 65535) {
      throw invalid(entry, "port " + port + " is outside 1-65535");
    }
    return InetSocketAddress.createUnresolved(host, port);
  }

  private static IllegalArgumentException invalid(String entry, String reason) {
    return new IllegalArgumentException("invalid quorum voter '" + entry + "': " + reason);
  }
}
