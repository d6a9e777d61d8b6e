package dev.tributary.transport.http;

import dev.tributary.common.errors.InvalidRegistrationException;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.metadata.AdvertisedListener.SecurityProtocol;
import dev.tributary.server.ControllerChannel.BrokerRegistration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * The internal API's JSON for a {@link BrokerRegistration} (broker to controller):
 *
 * <pre>
 * {"broker_id":1, "incarnation_id":"...", "host":"127.0.0.1", "port":8081,
 *  "listeners":[{"name":"HTTP", "host":"127.0.0.1", "port":8081, "security_protocol":"PLAINTEXT"}],
 *  "rack":"a"}
 * </pre>
 *
 * {@code rack} is there only for a broker with one ({@code broker.rack}): a body without it is a
 * broker without a rack, which is also what every body of a previous release means.
 *
 * <p>{@code host} and {@code port} repeat the HTTP listener: they are all a registration held
 * before listeners, so a controller of the previous release still reads this one. Conversely a body
 * without {@code listeners} (a broker of the previous release, during a rolling upgrade) stands for
 * one HTTP listener at {@code host:port}.
 */
public final class RegistrationWire {
  private RegistrationWire() {}

  public static Map<String, Object> toJson(BrokerRegistration registration) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("broker_id", registration.brokerId());
    body.put("incarnation_id", registration.incarnationId());
    AdvertisedListener.named(registration.listeners(), AdvertisedListener.HTTP)
        .ifPresent(
            http -> {
              body.put("host", http.host());
              body.put("port", http.port());
            });
    List<Map<String, Object>> listeners = new ArrayList<>();
    for (AdvertisedListener listener : registration.listeners()) {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("name", listener.name());
      entry.put("host", listener.host());
      entry.put("port", listener.port());
      entry.put("security_protocol", listener.securityProtocol().name());
      listeners.add(entry);
    }
    body.put("listeners", listeners);
    if (registration.rack() != null) {
      body.put("rack", registration.rack());
    }
    return body;
  }

  /**
   * Reads a registration of either shape.
   *
   * @param previousReleaseProtocol the security protocol of the HTTP listener of a body without
   *     {@code listeners}: the receiving broker's own, since every broker's HTTP listener is
   *     configured alike (docs/adr/0016-tls.md)
   * @throws InvalidRequestException if a listener is not an object with a string {@code name},
   *     {@code host} and {@code security_protocol} and an integer {@code port}, or {@code rack} is
   *     neither a string nor null
   * @throws InvalidRegistrationException for a security protocol Tributary does not serve
   */
  public static BrokerRegistration fromJson(
      JsonNode body, SecurityProtocol previousReleaseProtocol) {
    int brokerId = body.path("broker_id").asInt();
    String incarnationId = body.path("incarnation_id").asString();
    JsonNode entries = body.path("listeners");
    String rack = rack(body.path("rack"));
    if (entries.isMissingNode()) {
      return new BrokerRegistration(
          brokerId,
          incarnationId,
          List.of(
              new AdvertisedListener(
                  AdvertisedListener.HTTP,
                  body.path("host").asString(),
                  body.path("port").asInt(),
                  previousReleaseProtocol)),
          rack);
    }
    if (!entries.isArray()) {
      throw new InvalidRequestException("listeners must be an array");
    }
    List<AdvertisedListener> listeners = new ArrayList<>();
    for (JsonNode entry : entries) {
      listeners.add(listener(entry));
    }
    return new BrokerRegistration(brokerId, incarnationId, listeners, rack);
  }

  private static String rack(JsonNode rack) {
    if (rack.isMissingNode() || rack.isNull()) {
      return null;
    }
    if (!rack.isString()) {
      throw new InvalidRequestException("rack must be a string, got " + rack);
    }
    return rack.stringValue();
  }

  private static AdvertisedListener listener(JsonNode entry) {
    JsonNode port = entry.path("port");
    if (!entry.path("name").isString()
        || !entry.path("host").isString()
        || !entry.path("security_protocol").isString()
        || !port.isIntegralNumber()
        || !port.canConvertToInt()) {
      throw new InvalidRequestException(
          "each listener is {\"name\",\"host\",\"port\",\"security_protocol\"}, got " + entry);
    }
    String protocol = entry.path("security_protocol").stringValue();
    try {
      return new AdvertisedListener(
          entry.path("name").stringValue(),
          entry.path("host").stringValue(),
          port.intValue(),
          SecurityProtocol.valueOf(protocol));
    } catch (IllegalArgumentException e) {
      throw new InvalidRegistrationException(
          "unknown security protocol "
              + protocol
              + " (known: "
              + List.of(SecurityProtocol.values())
              + ")");
    }
  }
}
