package dev.tributary.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;

/**
 * One plaintext Kafka connection driven request by request, for tests that check exact answers
 * (error codes a client library would turn into something else): frames written by hand, messages
 * from kafka-clients. Reads time out after 20 s; a closed connection is an EOFException.
 */
final class RawKafkaConnection implements AutoCloseable {
  private final Socket socket;
  private int nextCorrelationId = 1;

  private RawKafkaConnection(Socket socket) {
    this.socket = socket;
  }

  /** A connection that has not authenticated. */
  static RawKafkaConnection open(int port) throws IOException {
    Socket socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(20_000);
    return new RawKafkaConnection(socket);
  }

  /** A connection that did the SASL/PLAIN exchange as kafka-clients does it (KIP-152). */
  static RawKafkaConnection authenticated(int port, String keyId, String secret)
      throws IOException {
    RawKafkaConnection connection = open(port);
    SaslHandshakeResponse handshake =
        connection.roundTrip(
            new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("PLAIN"))
                .build((short) 1));
    assertThat(handshake.error()).isEqualTo(Errors.NONE);
    byte[] plain = ("\0" + keyId + "\0" + secret).getBytes(StandardCharsets.UTF_8);
    SaslAuthenticateResponse authenticated =
        connection.roundTrip(
            new SaslAuthenticateRequest.Builder(
                    new SaslAuthenticateRequestData().setAuthBytes(plain))
                .build((short) 2));
    assertThat(authenticated.error()).isEqualTo(Errors.NONE);
    return connection;
  }

  /** Sends {@code request} and reads its answer. */
  @SuppressWarnings("unchecked")
  <R extends AbstractResponse> R roundTrip(AbstractRequest request) throws IOException {
    RequestHeader header =
        new RequestHeader(request.apiKey(), request.version(), "raw-test", nextCorrelationId++);
    ByteBuffer payload = request.serializeWithHeader(header);
    ByteBuffer frame = ByteBuffer.allocate(4 + payload.remaining());
    frame.putInt(payload.remaining()).put(payload).flip();
    socket.getOutputStream().write(frame.array(), 0, frame.limit());
    DataInputStream in = new DataInputStream(socket.getInputStream());
    byte[] response = new byte[in.readInt()];
    in.readFully(response);
    return (R) AbstractResponse.parseResponse(ByteBuffer.wrap(response), header);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
