package dev.tributary.api;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One plain Kafka connection for tests that must send what no Kafka client would (a stale
 * generation, an old request version): kafka-clients' messages, framed by hand, one request at a
 * time or one written now and read later.
 */
final class KafkaConnection implements AutoCloseable {
  private final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;
  private int correlationId;

  KafkaConnection(int port) {
    try {
      socket = new Socket("127.0.0.1", port);
      socket.setSoTimeout(30_000);
      in = new DataInputStream(socket.getInputStream());
      out = new DataOutputStream(socket.getOutputStream());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sends {@code request} at {@code version} and waits for its answer. */
  <R extends AbstractResponse> R send(AbstractRequest.Builder<?> request, int version) {
    return read(write(request, version));
  }

  /** Sends {@code request} at {@code version}; {@link #read} its answer later. */
  RequestHeader write(AbstractRequest.Builder<?> builder, int version) {
    AbstractRequest request = builder.build((short) version);
    RequestHeader header =
        new RequestHeader(request.apiKey(), (short) version, "kafka-wire-test", ++correlationId);
    ByteBuffer frame = request.serializeWithHeader(header);
    byte[] bytes = new byte[frame.remaining()];
    frame.get(bytes);
    try {
      out.writeInt(bytes.length);
      out.write(bytes);
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return header;
  }

  /** The answer to the request {@code header} was sent with (answers come in request order). */
  @SuppressWarnings("unchecked")
  <R extends AbstractResponse> R read(RequestHeader header) {
    try {
      byte[] bytes = new byte[in.readInt()];
      in.readFully(bytes);
      return (R) AbstractResponse.parseResponse(ByteBuffer.wrap(bytes), header);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
