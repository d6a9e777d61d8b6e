package dev.tributary.transport.http;

/**
 * Marks a client request one broker sent on to another, so the receiver answers it itself and never
 * re-forwards.
 */
public final class Forwarding {
  public static final String FORWARDED_HEADER = "X-Tributary-Forwarded-By";

  /**
   * The metadata offset the forwarding broker had applied: the receiver first waits (briefly) until
   * its own image has reached it, so that a request sent right after a change (a new topic, a
   * leader change) is not refused by a leader that has not seen the change yet.
   */
  public static final String METADATA_OFFSET_HEADER = "X-Tributary-Metadata-Offset";

  private Forwarding() {}
}
