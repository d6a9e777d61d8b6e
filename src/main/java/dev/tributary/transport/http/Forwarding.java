package dev.tributary.transport.http;

/** Marks a client request one broker sent on to another, so the receiver answers it itself and never re-forwards. */
public final class Forwarding {
  public static final String FORWARDED_HEADER = "X-Tributary-Forwarded-By";

  private Forwarding() {}
}
