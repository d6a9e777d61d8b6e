package dev.tributary.api;

import java.util.Objects;

/**
 * A JSON answer body held as the first {@code length} bytes of {@code bytes}, so a large read is
 * not copied into an exact-size array before Tomcat copies it once more into the socket. Written by
 * {@link RenderedJsonConverter}.
 *
 * <p>Invariant: {@code 0 <= length <= bytes.length}.
 */
record RenderedJson(byte[] bytes, int length) {
  RenderedJson {
    Objects.requireNonNull(bytes, "bytes");
    if (length < 0 || length > bytes.length) {
      throw new IllegalArgumentException(
          "length " + length + " outside an array of " + bytes.length + " bytes");
    }
  }
}
