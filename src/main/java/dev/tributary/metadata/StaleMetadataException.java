package dev.tributary.metadata;

/**
 * A metadata batch was computed from an image that is no longer current (another batch committed
 * first, or controllership moved); it was not applied anywhere. The caller recomputes from the
 * newer image.
 */
public class StaleMetadataException extends RuntimeException {
  public StaleMetadataException(long expectedLastOffset, long actualLastOffset) {
    super(
        "metadata batch expected last offset "
            + expectedLastOffset
            + " but the image is at "
            + actualLastOffset);
  }
}
