package dev.tributary.metadata;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One listener a broker advertises in its registration (an entry of Kafka's {@code
 * advertised.listeners}, and of {@code BrokerRegistrationRecord.endPoints}): where clients and
 * other brokers reach it for one protocol. Names are Kafka's listener names: {@value #HTTP} for the
 * REST and internal API, and {@code KAFKA} for the wire protocol.
 *
 * <p>A registration's listeners are sorted by name, with unique names, and one of them is {@value
 * #HTTP} ({@link #ofRegistration}); the controller refuses any other registration ({@link
 * ClusterControl#register}), so every {@link BrokerImage} has an HTTP listener. The port may be 0
 * only in a broker's configuration, before its listener has bound.
 *
 * @param name the listener name, upper case ({@code HTTP})
 * @param host the host clients connect to
 * @param port the port clients connect to
 * @param securityProtocol what the connection speaks under the protocol
 */
public record AdvertisedListener(
    String name, String host, int port, SecurityProtocol securityProtocol) {

  /** The listener that serves the REST and internal API; every broker has one. */
  public static final String HTTP = "HTTP";

  /**
   * Kafka's security protocols, those Tributary serves; written into records by name, so reordering
   * them changes nothing stored.
   */
  public enum SecurityProtocol {
    /** No TLS. */
    PLAINTEXT,
    /** TLS ({@code server.ssl.bundle} set for the HTTP listener: docs/adr/0016-tls.md). */
    SSL,
    /** SASL authentication without TLS (the Kafka listener with client authentication on). */
    SASL_PLAINTEXT,
    /** SASL authentication over TLS (the Kafka listener with authentication and TLS on). */
    SASL_SSL
  }

  public AdvertisedListener {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(securityProtocol, "securityProtocol");
  }

  /**
   * The one listener a registration of the previous record version stands for: HTTP at its host and
   * port, PLAINTEXT since that version did not say.
   */
  public static AdvertisedListener http(String host, int port) {
    return new AdvertisedListener(HTTP, host, port, SecurityProtocol.PLAINTEXT);
  }

  /**
   * {@code listeners} as a registration holds them: a copy sorted by name.
   *
   * @throws IllegalArgumentException if two share a name or none is {@value #HTTP}
   */
  public static List<AdvertisedListener> ofRegistration(Collection<AdvertisedListener> listeners) {
    List<AdvertisedListener> sorted = new ArrayList<>(listeners);
    sorted.sort(Comparator.comparing(AdvertisedListener::name));
    Set<String> names = new HashSet<>();
    for (AdvertisedListener listener : sorted) {
      if (!names.add(listener.name())) {
        throw new IllegalArgumentException("two listeners are named " + listener.name());
      }
    }
    if (!names.contains(HTTP)) {
      throw new IllegalArgumentException("no " + HTTP + " listener among " + sorted);
    }
    return List.copyOf(sorted);
  }

  /** The listener named {@code name} among {@code listeners}, if any. */
  public static Optional<AdvertisedListener> named(
      List<AdvertisedListener> listeners, String name) {
    return listeners.stream().filter(l -> l.name().equals(name)).findFirst();
  }

  /** {@code NAME://host:port (PROTOCOL)}: Kafka's way of writing a listener, and its protocol. */
  @Override
  public String toString() {
    return name + "://" + host + ":" + port + " (" + securityProtocol + ")";
  }
}
