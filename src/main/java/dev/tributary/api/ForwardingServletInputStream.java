package dev.tributary.api;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;

/**
 * A request body stream that passes everything to the container's; the body filters ({@link
 * RequestSizeFilter}, {@link BodyDeadlineFilter}) override the reads to check each one.
 */
abstract class ForwardingServletInputStream extends ServletInputStream {
  protected final ServletInputStream in;

  ForwardingServletInputStream(ServletInputStream in) {
    this.in = in;
  }

  @Override
  public boolean isFinished() {
    return in.isFinished();
  }

  @Override
  public boolean isReady() {
    return in.isReady();
  }

  @Override
  public void setReadListener(ReadListener listener) {
    in.setReadListener(listener);
  }
}
