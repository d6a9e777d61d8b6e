package dev.tributary.common;

/** Kafka's topic-name rules: 1-249 characters of {@code [a-zA-Z0-9._-]}, and not "." or "..". */
public final class TopicName {
  public static final int MAX_LENGTH = 249;

  private TopicName() {}

  /** Returns null when the name is legal, otherwise why it is not. */
  public static String problemWith(String name) {
    if (name == null || name.isEmpty()) {
      return "Topic name is empty";
    }
    if (name.equals(".") || name.equals("..")) {
      return "Topic name cannot be \".\" or \"..\"";
    }
    if (name.length() > MAX_LENGTH) {
      return "Topic name is " + name.length() + " characters long; the maximum is " + MAX_LENGTH;
    }
    if (!name.chars().allMatch(c -> isLegalChar((char) c))) {
      return "Topic name \""
          + name
          + "\" is illegal: it may contain only ASCII letters, digits, '.', '_' and '-'";
    }
    return null;
  }

  /** Whether {@code c} may appear in a topic name: an ASCII letter or digit, '.', '_' or '-'. */
  public static boolean isLegalChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '.'
        || c == '_'
        || c == '-';
  }
}
