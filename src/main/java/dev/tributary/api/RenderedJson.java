package dev.tributary.api;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * A JSON answer body held as the chunks it was rendered into (each buffer's remaining bytes, in
 * order), so a large read is neither gathered into one array nor copied before Tomcat copies it
 * into the socket. Written by {@link RenderedJsonConverter}; built by {@link JsonOutput}.
 */
record RenderedJson(List<ByteBuffer> chunks) {
  RenderedJson {
    chunks = List.copyOf(chunks);
  }

  /** The body's length in bytes. */
  long length() {
    long length = 0;
    for (ByteBuffer chunk : chunks) {
      length += chunk.remaining();
    }
    return length;
  }

  /** Writes the body to {@code out} chunk by chunk, as it is (no copy on this side). */
  void writeTo(OutputStream out) throws IOException {
    for (ByteBuffer chunk : chunks) {
      out.write(chunk.array(), chunk.arrayOffset() + chunk.position(), chunk.remaining());
    }
  }

  /** The whole body in one array (for tests and logs; answers are written chunk by chunk). */
  byte[] toByteArray() {
    ByteArrayOutputStream out = new ByteArrayOutputStream((int) length());
    try {
      writeTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    return out.toByteArray();
  }
}
