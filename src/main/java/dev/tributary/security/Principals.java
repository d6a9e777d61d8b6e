package dev.tributary.security;

/** Principal names, as Kafka writes them: {@code Type:name}, e.g. {@code User:alice}. */
public final class Principals {
  /** Who a request is when authentication is off. */
  public static final String ANONYMOUS = "User:ANONYMOUS";

  /**
   * Who a broker is when it acts for itself (its group coordinator's writes, relays without a
   * client) or is trusted as a peer: a super user of every broker of the cluster.
   */
  public static final String BROKER = "User:tributary-broker";

  private Principals() {}

  /** Throws IllegalArgumentException unless {@code principal} is {@code Type:name}. */
  public static String requireValid(String principal) {
    if (principal == null) {
      throw new IllegalArgumentException("principal must be given, e.g. User:alice");
    }
    int colon = principal.indexOf(':');
    if (colon <= 0 || colon == principal.length() - 1 || principal.length() > 255) {
      throw new IllegalArgumentException(
          "principal must be Type:name, e.g. User:alice (at most 255 characters), got '"
              + principal
              + "'");
    }
    for (int i = 0; i < principal.length(); i++) {
      char c = principal.charAt(i);
      if (Character.isISOControl(c) || Character.isWhitespace(c)) {
        throw new IllegalArgumentException(
            "principal must not contain spaces or control characters");
      }
    }
    return principal;
  }
}
