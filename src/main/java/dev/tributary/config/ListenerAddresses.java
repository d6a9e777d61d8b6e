package dev.tributary.config;

import dev.tributary.metadata.ratis.QuorumVoters;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Where this broker's listeners bind and the host it tells its peers to call (Kafka's {@code
 * listeners} and {@code advertised.listeners} hosts), resolved from the settings in one place.
 *
 * <p>A broker on a host of its own (a machine, a container, a network namespace) sets {@code
 * server.address} to its address; both hosts then follow it unless set themselves: {@code
 * tributary.advertised-host} (what peers and clients are told) and {@code tributary.kafka.host}
 * (where the Kafka listener binds). A wildcard {@code server.address} (0.0.0.0, ::) says nothing
 * about which address peers can reach, so the advertised host then stays on loopback unless set.
 *
 * @param advertisedHost the host this broker registers for its HTTP listener; never a wildcard
 * @param kafkaBindHost where the Kafka listener binds
 */
record ListenerAddresses(String advertisedHost, String kafkaBindHost) {
  static final String LOOPBACK = "127.0.0.1";

  /**
   * @param serverAddress {@code server.address}; blank when unset (Spring then binds every
   *     interface)
   * @throws IllegalArgumentException naming the setting, when the result cannot work: a wildcard
   *     advertised host, or a loopback one in a cluster whose other members are on other hosts
   */
  static ListenerAddresses resolve(TributaryProperties properties, String serverAddress) {
    String bind = serverAddress == null ? "" : serverAddress.strip();
    String advertised = properties.advertisedHost();
    if (advertised == null || advertised.isBlank()) {
      advertised = bind.isEmpty() || isWildcard(bind) ? LOOPBACK : bind;
    }
    String kafkaHost = properties.kafka().host();
    if (kafkaHost == null || kafkaHost.isBlank()) {
      kafkaHost = bind.isEmpty() ? LOOPBACK : bind;
    }
    ListenerAddresses addresses = new ListenerAddresses(advertised.strip(), kafkaHost.strip());
    addresses.checkReachableByPeers(properties);
    return addresses;
  }

  /**
   * Refuses an advertised host that peers cannot call. A broker that advertises loopback while the
   * other quorum members live elsewhere is called by them at their own loopback: the calls are
   * refused, they report it unreachable, the controller's probe of that address is refused too, and
   * a healthy broker is fenced. Failing at start names the setting instead.
   */
  private void checkReachableByPeers(TributaryProperties properties) {
    if (isWildcard(advertisedHost)) {
      throw new IllegalArgumentException(
          "tributary.advertised-host is "
              + advertisedHost
              + ", an address to listen on, not one peers can call; set it (or server.address)"
              + " to this broker's own address");
    }
    if (!isLoopback(advertisedHost)) {
      return;
    }
    Map<Integer, InetSocketAddress> members = new LinkedHashMap<>();
    TributaryProperties.Controller controller = properties.controller();
    if (!controller.quorumVoters().isBlank()) {
      members.putAll(QuorumVoters.parse(controller.quorumVoters()));
    }
    if (!controller.quorumListeners().isBlank()) {
      members.putAll(QuorumVoters.parse(controller.quorumListeners()));
    }
    members.remove(properties.brokerId());
    for (Map.Entry<Integer, InetSocketAddress> member : members.entrySet()) {
      String host = member.getValue().getHostString();
      if (!isLoopback(host)) {
        throw new IllegalArgumentException(
            "tributary.advertised-host is "
                + advertisedHost
                + " (loopback), but broker "
                + member.getKey()
                + " of the metadata quorum is on "
                + host
                + ": it could not call this broker back. Set tributary.advertised-host (or"
                + " server.address) to this broker's address as the other brokers reach it");
      }
    }
  }

  /** By the written form only: no DNS lookup at start. */
  static boolean isLoopback(String host) {
    String h = unbracket(host).toLowerCase(Locale.ROOT);
    return h.equals("localhost") || h.startsWith("127.") || h.equals("::1");
  }

  static boolean isWildcard(String host) {
    String h = unbracket(host);
    return h.equals("0.0.0.0") || h.equals("::") || h.equals("0:0:0:0:0:0:0:0");
  }

  private static String unbracket(String host) {
    String h = host.strip();
    return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
  }
}
