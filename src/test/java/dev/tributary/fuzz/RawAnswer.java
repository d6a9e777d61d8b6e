package dev.tributary.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 answer read off a raw socket up to the end of the stream (the request said {@code
 * Connection: close}), for the tests that send what {@code java.net.http} would refuse to: its
 * status, headers and body, a chunked body put back together. Anything that is not a whole answer
 * (no end of headers, no status line, a chunk cut short) is an {@link IOException}: over a cut or
 * lossy link that is an answer that did not arrive, not a broker's fault.
 *
 * @param headers by name as sent, each with its values in order
 */
public record RawAnswer(int status, Map<String, List<String>> headers, String body) {

  /** Reads the whole stream as one answer. */
  public static RawAnswer read(InputStream in) throws IOException {
    byte[] all = in.readAllBytes();
    String text = new String(all, StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) {
      throw new IOException("no complete answer: '" + text + "'");
    }
    String[] lines = text.substring(0, end).split("\r\n");
    int status;
    try {
      status = Integer.parseInt(lines[0].split(" ")[1]);
    } catch (RuntimeException e) {
      throw new IOException("not an HTTP status line: " + lines[0], e);
    }
    Map<String, List<String>> headers = new LinkedHashMap<>();
    boolean chunked = false;
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon < 0) {
        throw new IOException("not a header line: " + lines[i]);
      }
      String name = lines[i].substring(0, colon).trim();
      String value = lines[i].substring(colon + 1).trim();
      headers.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
      chunked |=
          name.equalsIgnoreCase("Transfer-Encoding")
              && value.toLowerCase(Locale.ROOT).contains("chunked");
    }
    byte[] raw = java.util.Arrays.copyOfRange(all, end + 4, all.length);
    return new RawAnswer(
        status, headers, new String(chunked ? dechunk(raw) : raw, StandardCharsets.UTF_8));
  }

  private static byte[] dechunk(byte[] raw) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int at = 0;
    while (at < raw.length) {
      int lineEnd = at;
      while (lineEnd + 1 < raw.length && !(raw[lineEnd] == '\r' && raw[lineEnd + 1] == '\n')) {
        lineEnd++;
      }
      String size = new String(raw, at, lineEnd - at, StandardCharsets.US_ASCII).trim();
      int length;
      try {
        length = Integer.parseInt(size.split(";")[0], 16);
      } catch (NumberFormatException e) {
        throw new IOException("not a chunk size: '" + size + "'", e);
      }
      if (length == 0) {
        break;
      }
      if (lineEnd + 2 + length > raw.length) {
        throw new IOException("a chunk cut short");
      }
      out.write(raw, lineEnd + 2, length);
      at = lineEnd + 2 + length + 2;
    }
    return out.toByteArray();
  }
}
