package dev.tributary.api;

import dev.tributary.fuzz.RawAnswer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/1.1 over a plain socket bound to a chosen loopback address ({@code 127.0.0.2} and up are
 * loopback too on Linux), so that one test can act as several clients: the broker tells anonymous
 * clients apart by remote address. One request per connection ({@code Connection: close}).
 */
final class RawHttp {
  private RawHttp() {}

  /** A socket from {@code localAddress} to the broker; the caller closes it. */
  static Socket connect(String localAddress, int port) {
    try {
      Socket socket = new Socket();
      socket.bind(new InetSocketAddress(localAddress, 0));
      socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      socket.setSoTimeout(30_000);
      return socket;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Sends one request from {@code localAddress} and reads the whole answer. The request target goes
   * as written, byte for byte (no client re-encodes it); {@code headerPairs} are name, value.
   */
  static ApiTestSupport.Response send(
      String localAddress,
      int port,
      String method,
      String path,
      String contentType,
      String body,
      String... headerPairs) {
    try (Socket socket = connect(localAddress, port)) {
      byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
      StringBuilder head =
          new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      head.append("Connection: close\r\n");
      for (int i = 0; i < headerPairs.length; i += 2) {
        head.append(headerPairs[i]).append(": ").append(headerPairs[i + 1]).append("\r\n");
      }
      if (contentType != null) {
        head.append("Content-Type: ").append(contentType).append("\r\n");
      }
      if (body != null) {
        head.append("Content-Length: ").append(bytes.length).append("\r\n");
      }
      head.append("\r\n");
      socket.getOutputStream().write(head.toString().getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().write(bytes);
      socket.getOutputStream().flush();
      return read(socket.getInputStream());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads one answer up to the end of the stream (the server closes after it). */
  static ApiTestSupport.Response read(InputStream in) throws IOException {
    RawAnswer answer = RawAnswer.read(in);
    return new ApiTestSupport.Response(
        answer.status(),
        java.net.http.HttpHeaders.of(answer.headers(), (k, v) -> true),
        answer.body());
  }
}
