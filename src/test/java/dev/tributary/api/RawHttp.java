package dev.tributary.api;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

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
    byte[] all = in.readAllBytes();
    String text = new String(all, StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) {
      throw new IOException("no complete answer: '" + text + "'");
    }
    String[] lines = text.substring(0, end).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers
          .computeIfAbsent(lines[i].substring(0, colon).trim(), k -> new ArrayList<>())
          .add(lines[i].substring(colon + 1).trim());
    }
    byte[] rawBody = java.util.Arrays.copyOfRange(all, end + 4, all.length);
    boolean chunked =
        headers.entrySet().stream()
            .anyMatch(
                e ->
                    e.getKey().equalsIgnoreCase("Transfer-Encoding")
                        && e.getValue().toString().toLowerCase(Locale.ROOT).contains("chunked"));
    String body = new String(chunked ? dechunk(rawBody) : rawBody, StandardCharsets.UTF_8);
    return new ApiTestSupport.Response(
        status, java.net.http.HttpHeaders.of(headers, (k, v) -> true), body);
  }

  private static byte[] dechunk(byte[] raw) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int at = 0;
    while (at < raw.length) {
      int lineEnd = at;
      while (lineEnd + 1 < raw.length && !(raw[lineEnd] == '\r' && raw[lineEnd + 1] == '\n')) {
        lineEnd++;
      }
      String sizeText = new String(raw, at, lineEnd - at, StandardCharsets.US_ASCII).trim();
      int size = Integer.parseInt(sizeText.split(";")[0], 16);
      if (size == 0) {
        break;
      }
      out.write(raw, lineEnd + 2, size);
      at = lineEnd + 2 + size + 2;
    }
    return out.toByteArray();
  }
}
