package dev.tributary.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Hand-rolled parser for {@code --name value} and {@code --name=value} options.
 *
 * <p>Every option must be in the caller's known set; a repeated option, a missing value or a stray
 * positional argument is a {@link UsageException}. Typed getters validate ranges so that the
 * benchmark fails before it sends anything rather than halfway through a run.
 */
final class Args {
  private final Map<String, String> values;

  private Args(Map<String, String> values) {
    this.values = values;
  }

  /**
   * Parses {@code argv}; {@code --help} is accepted anywhere and reported by {@link
   * #helpRequested()}.
   */
  static Args parse(String[] argv, Set<String> known) {
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < argv.length; i++) {
      String arg = argv[i];
      if (arg.equals("--help") || arg.equals("-h")) {
        values.put("help", "true");
        continue;
      }
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw new UsageException("unexpected argument '" + arg + "'");
      }
      String name;
      String value;
      int eq = arg.indexOf('=');
      if (eq >= 0) {
        name = arg.substring(2, eq);
        value = arg.substring(eq + 1);
      } else {
        name = arg.substring(2);
        if (i + 1 >= argv.length || argv[i + 1].startsWith("--")) {
          throw new UsageException("option --" + name + " needs a value");
        }
        value = argv[++i];
      }
      if (!known.contains(name)) {
        throw new UsageException("unknown option --" + name);
      }
      if (values.putIfAbsent(name, value) != null) {
        throw new UsageException("option --" + name + " given twice");
      }
    }
    return new Args(values);
  }

  boolean helpRequested() {
    return values.containsKey("help");
  }

  String string(String name, String defaultValue) {
    String v = values.get(name);
    if (v == null) {
      return defaultValue;
    }
    if (v.isBlank()) {
      throw new UsageException("--" + name + " must not be empty");
    }
    return v;
  }

  String oneOf(String name, String defaultValue, Set<String> allowed) {
    String v = string(name, defaultValue);
    if (!allowed.contains(v)) {
      throw new UsageException("--" + name + " must be one of " + allowed + ", got '" + v + "'");
    }
    return v;
  }

  /** A long in {@code [min, max]}; accepts underscores and k/m suffixes (1_000_000, 100k, 2m). */
  long longInRange(String name, long defaultValue, long min, long max) {
    String v = values.get(name);
    long parsed = v == null ? defaultValue : parseCount(name, v);
    if (parsed < min || parsed > max) {
      throw new UsageException(
          "--" + name + " must be between " + min + " and " + max + ", got " + parsed);
    }
    return parsed;
  }

  int intInRange(String name, int defaultValue, int min, int max) {
    return (int) longInRange(name, defaultValue, min, max);
  }

  private static long parseCount(String name, String raw) {
    String v = raw.replace("_", "").toLowerCase();
    long multiplier = 1;
    if (v.endsWith("k")) {
      multiplier = 1_000;
      v = v.substring(0, v.length() - 1);
    } else if (v.endsWith("m")) {
      multiplier = 1_000_000;
      v = v.substring(0, v.length() - 1);
    }
    try {
      return Math.multiplyExact(Long.parseLong(v), multiplier);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new UsageException("--" + name + " must be a whole number, got '" + raw + "'");
    }
  }

  /** A mistake in the command line; the message is shown to the user above the usage text. */
  static final class UsageException extends RuntimeException {
    UsageException(String message) {
      super(message);
    }
  }
}
