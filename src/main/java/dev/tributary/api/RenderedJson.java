package dev.tributary.api;

import java.io.ByteArrayOutputStream;
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

  /** The whole body in one array (for tests and logs; answers are written chunk by chunk). */
  byte[] toByteArray() {
    ByteArrayOutputStream out = new ByteArrayOutputStream((int) length());
    for (ByteBuffer chunk : chunks) {
      out.write(chunk.array(), chunk.arrayOffset() + chunk.position(), chunk.remaining());
    }
    return out.toByteArray();
  }
}
