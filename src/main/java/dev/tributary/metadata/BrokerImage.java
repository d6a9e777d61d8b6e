package dev.tributary.metadata;

import dev.tributary.common.Uuid;
import java.util.List;
import java.util.Optional;

/**
 * A registered broker: id, the incarnation of its current process, the listeners it advertises, its
 * broker epoch (the metadata offset of the {@link MetadataRecord.RegisterBroker} that made this
 * registration), whether it is fenced, and its rack ({@code broker.rack}; empty when it has none).
 * A fenced broker may lead no partition; every registration starts fenced. The rack is what {@link
 * ReplicaPlacement} spreads replicas over (docs/adr/0027-racks.md).
 *
 * <p>Invariant: {@code listeners} are sorted by name, names are unique, and one is {@value
 * AdvertisedListener#HTTP} (checked by {@link AdvertisedListener#ofRegistration}), so {@link
 * #host()} and {@link #port()} always answer.
 */
public record BrokerImage(
    int brokerId,
    Uuid incarnationId,
    List<AdvertisedListener> listeners,
    long brokerEpoch,
    boolean fenced,
    Optional<String> rack) {

  public BrokerImage {
    listeners = AdvertisedListener.ofRegistration(listeners);
    rack = rack == null ? Optional.empty() : rack;
  }

  /** A broker without a rack. */
  public BrokerImage(
      int brokerId,
      Uuid incarnationId,
      List<AdvertisedListener> listeners,
      long brokerEpoch,
      boolean fenced) {
    this(brokerId, incarnationId, listeners, brokerEpoch, fenced, Optional.empty());
  }

  /** A broker with the one HTTP listener and no rack. */
  public BrokerImage(
      int brokerId, Uuid incarnationId, String host, int port, long brokerEpoch, boolean fenced) {
    this(
        brokerId, incarnationId, List.of(AdvertisedListener.http(host, port)), brokerEpoch, fenced);
  }

  /** The listener named {@code name}, if this broker advertises one. */
  public Optional<AdvertisedListener> listener(String name) {
    return AdvertisedListener.named(listeners, name);
  }

  /** The listener of the REST and internal API: where other brokers route HTTP. */
  public AdvertisedListener httpListener() {
    return listener(AdvertisedListener.HTTP).orElseThrow();
  }

  /** The host of the {@link #httpListener() HTTP listener}. */
  public String host() {
    return httpListener().host();
  }

  /** The port of the {@link #httpListener() HTTP listener}. */
  public int port() {
    return httpListener().port();
  }

  BrokerImage withFenced(boolean nextFenced) {
    return new BrokerImage(brokerId, incarnationId, listeners, brokerEpoch, nextFenced, rack);
  }
}
