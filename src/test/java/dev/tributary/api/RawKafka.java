package dev.tributary.api;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A Kafka connection at the frame level, for tests that send what no client would: hand-built
 * frames, garbage, truncations, old versions. Not thread-safe.
 */
final class RawKafka implements AutoCloseable {
  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;
  private int nextCorrelationId = 1;

  RawKafka(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(20_000);
    in = new DataInputStream(socket.getInputStream());
    out = socket.getOutputStream();
  }

  /** Writes {@code payload} (header and body) behind its 4-byte size. */
  void sendFrame(ByteBuffer payload) throws IOException {
    ByteBuffer framed = ByteBuffer.allocate(4 + payload.remaining());
    framed.putInt(payload.remaining()).put(payload.duplicate()).flip();
    sendBytes(framed);
  }

  /** Writes exactly these bytes: a size that lies, half a frame, anything. */
  void sendBytes(ByteBuffer bytes) throws IOException {
    byte[] array = new byte[bytes.remaining()];
    bytes.duplicate().get(array);
    out.write(array);
    out.flush();
  }

  /** No more bytes from this side (the broker sees end of stream). */
  void shutdownOutput() throws IOException {
    socket.shutdownOutput();
  }

  /** The next response frame (after its size), or null if the broker closed the connection. */
  ByteBuffer readFrame() throws IOException {
    int size;
    try {
      size = in.readInt();
    } catch (EOFException e) {
      return null;
    }
    byte[] payload = new byte[size];
    in.readFully(payload);
    return ByteBuffer.wrap(payload);
  }

  /** True once the broker has closed the connection (reads end of stream, not a response). */
  boolean closedByBroker() throws IOException {
    try {
      return in.read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset
    }
  }

  /** Sends {@code request} at its version and parses the answer with kafka-clients. */
  @SuppressWarnings("unchecked")
  <R extends AbstractResponse> R roundTrip(AbstractRequest request) throws IOException {
    RequestHeader header =
        new RequestHeader(request.apiKey(), request.version(), "raw-test", nextCorrelationId++);
    sendFrame(request.serializeWithHeader(header));
    ByteBuffer response = readFrame();
    if (response == null) {
      throw new EOFException("the broker closed the connection instead of answering");
    }
    return (R) AbstractResponse.parseResponse(response, header);
  }

  int nextCorrelationId() {
    return nextCorrelationId++;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
