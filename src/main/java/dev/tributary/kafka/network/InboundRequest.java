package dev.tributary.kafka.network;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * One request read off a Kafka connection, its header parsed and its body still bytes (positioned
 * after the header). Exactly one of {@link #respond}, {@link #noResponse} or {@link #close} must be
 * called, from any thread: until then the connection reads nothing more.
 *
 * <p>The principal is who the connection authenticated as (ANONYMOUS on a listener without SASL);
 * the client information is its software name and version (KIP-511), as its ApiVersions said.
 */
public final class InboundRequest {
  private final Processor processor;
  private final String connectionId;
  private final RequestHeader header;
  private final ByteBuffer body;
  private final int sizeInBytes;
  private final KafkaPrincipal principal;
  private final InetAddress clientAddress;
  private final ListenerName listenerName;
  private final SecurityProtocol securityProtocol;
  private final ClientInformation client;
  private final long receivedNanos = System.nanoTime();

  InboundRequest(
      Processor processor,
      String connectionId,
      RequestHeader header,
      ByteBuffer body,
      int sizeInBytes,
      KafkaPrincipal principal,
      InetAddress clientAddress,
      ListenerName listenerName,
      SecurityProtocol securityProtocol,
      ClientInformation client) {
    this.processor = processor;
    this.connectionId = connectionId;
    this.header = header;
    this.body = body;
    this.sizeInBytes = sizeInBytes;
    this.principal = principal;
    this.clientAddress = clientAddress;
    this.listenerName = listenerName;
    this.securityProtocol = securityProtocol;
    this.client = client;
  }

  public String connectionId() {
    return connectionId;
  }

  public RequestHeader header() {
    return header;
  }

  /** The body's bytes, positioned after the header. */
  public ByteBuffer body() {
    return body;
  }

  public int sizeInBytes() {
    return sizeInBytes;
  }

  public KafkaPrincipal principal() {
    return principal;
  }

  public InetAddress clientAddress() {
    return clientAddress;
  }

  public ListenerName listenerName() {
    return listenerName;
  }

  public SecurityProtocol securityProtocol() {
    return securityProtocol;
  }

  public ClientInformation client() {
    return client;
  }

  public long receivedNanos() {
    return receivedNanos;
  }

  public void respond(Send response) {
    processor.respond(connectionId, response);
  }

  /** acks=0: nothing goes back; the connection reads its next request. */
  public void noResponse() {
    processor.noResponse(connectionId);
  }

  /** Kafka's answer to a request it cannot read or must refuse without a response. */
  public void close() {
    processor.closeConnection(connectionId);
  }

  /**
   * After this request's response, the connection stays muted until {@link #endThrottling}: a
   * client over its quota is slowed down (KIP-219), not refused.
   */
  public void startThrottling() {
    processor.startThrottling(connectionId);
  }

  public void endThrottling() {
    processor.endThrottling(connectionId);
  }
}
