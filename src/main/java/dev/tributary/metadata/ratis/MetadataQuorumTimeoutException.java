package dev.tributary.metadata.ratis;

/**
 * A metadata batch did not commit and apply within the append timeout (no quorum reachable, or a
 * slow disk). Its fate is unknown: it may still commit. Retrying with the same {@code
 * expectedLastOffset} is safe — if the first attempt did commit, the retry is stale and changes
 * nothing.
 */
public class MetadataQuorumTimeoutException extends RuntimeException {
  public MetadataQuorumTimeoutException(String message) {
    super(message);
  }
}
