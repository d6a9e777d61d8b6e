package dev.tributary.security;

/** How an ACL's resource name matches, as Kafka's pattern types. */
public enum PatternType {
  /** The exact name; the name {@code *} matches every resource of its type. */
  LITERAL,
  /** Every resource whose name starts with the ACL's name. */
  PREFIXED;

  boolean matches(String pattern, String name) {
    return switch (this) {
      case LITERAL -> pattern.equals(AclBinding.WILDCARD) || pattern.equals(name);
      case PREFIXED -> name.startsWith(pattern);
    };
  }
}
