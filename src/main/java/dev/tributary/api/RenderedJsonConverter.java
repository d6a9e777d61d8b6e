package dev.tributary.api;

import java.io.IOException;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.HttpOutputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.converter.AbstractHttpMessageConverter;
import org.springframework.http.converter.HttpMessageNotReadableException;

/**
 * Writes a {@link RenderedJson} answer as it is, with its Content-Length; the handler sets the
 * Content-Type. Never reads: no request body is bound to this type.
 */
final class RenderedJsonConverter extends AbstractHttpMessageConverter<RenderedJson> {
  RenderedJsonConverter() {
    super(MediaType.ALL);
  }

  @Override
  protected boolean supports(Class<?> type) {
    return RenderedJson.class == type;
  }

  @Override
  public boolean canRead(Class<?> type, MediaType mediaType) {
    return false;
  }

  @Override
  protected Long getContentLength(RenderedJson body, MediaType contentType) {
    return body.length();
  }

  @Override
  protected RenderedJson readInternal(Class<? extends RenderedJson> type, HttpInputMessage input) {
    throw new HttpMessageNotReadableException("rendered JSON is never read", input);
  }

  @Override
  protected void writeInternal(RenderedJson body, HttpOutputMessage output) throws IOException {
    body.writeTo(output.getBody());
  }
}
