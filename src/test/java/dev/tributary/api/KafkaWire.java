package dev.tributary.api;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One Kafka request over a fresh connection, and its response, for what kafka-clients' Admin cannot
 * send (the old AlterConfigs, a topic named twice, a version or field of our choosing).
 */
final class KafkaWire {
  private static final AtomicInteger CORRELATION = new AtomicInteger();

  private KafkaWire() {}

  static AbstractResponse send(int port, AbstractRequest request) throws IOException {
    RequestHeader header =
        new RequestHeader(
            request.apiKey(), request.version(), "kafka-wire-test", CORRELATION.incrementAndGet());
    ByteBuffer frame = request.serializeWithHeader(header);
    byte[] bytes = new byte[frame.remaining()];
    frame.get(bytes);
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      out.writeInt(bytes.length);
      out.write(bytes);
      out.flush();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      byte[] body = new byte[in.readInt()];
      in.readFully(body);
      return AbstractResponse.parseResponse(ByteBuffer.wrap(body), header);
    }
  }
}
