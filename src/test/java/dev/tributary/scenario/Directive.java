package dev.tributary.scenario;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One step of a scenario: a command with its arguments, and the input lines written between the
 * command line and its {@code ----}, if any. Arguments are written {@code key=value}, {@code
 * key=(a, b, c)} for a list, {@code key="a value with spaces"}, or a bare {@code key} (a flag,
 * whose value is empty).
 *
 * <p>The handler reads the arguments it understands; an argument it never read is reported as an
 * error by the runner, so a misspelt key fails instead of being silently ignored. Every {@code
 * *Arg} accessor counts as a read.
 *
 * <p>Not thread-safe; a directive lives for one call of {@link ScenarioHandler#run}.
 */
public final class Directive {
  private final String file;
  private final int line;
  private final String text;
  private final String command;
  private final Map<String, String> args;
  private final List<String> input;
  private final Set<String> read = new HashSet<>();

  Directive(String file, int line, String text, List<String> input) {
    this.file = file;
    this.line = line;
    this.text = text.strip();
    this.input = List.copyOf(input);
    List<String> tokens = tokenize(this.text);
    this.command = tokens.get(0);
    Map<String, String> parsed = new LinkedHashMap<>();
    for (String token : tokens.subList(1, tokens.size())) {
      int eq = token.indexOf('=');
      String key = eq < 0 ? token : token.substring(0, eq);
      String value = eq < 0 ? "" : unquote(token.substring(eq + 1));
      if (key.isEmpty() || parsed.put(key, value) != null) {
        throw new ScenarioException(where() + ": bad or repeated argument '" + token + "'");
      }
    }
    this.args = Collections.unmodifiableMap(parsed);
  }

  public String command() {
    return command;
  }

  /** The scenario file's name relative to the scenarios directory, e.g. {@code group/x.txt}. */
  public String file() {
    return file;
  }

  /** The 1-based line of the command in its file. */
  public int line() {
    return line;
  }

  /** The lines between the command line and {@code ----}; empty if none. */
  public List<String> input() {
    return input;
  }

  /** Every argument as written, in order, without marking any as read. */
  public Map<String, String> args() {
    return args;
  }

  public boolean hasArg(String key) {
    read.add(key);
    return args.containsKey(key);
  }

  /** The value of a required argument. */
  public String arg(String key) {
    read.add(key);
    String value = args.get(key);
    if (value == null) {
      throw fail("needs " + key + "=...");
    }
    return value;
  }

  public String arg(String key, String defaultValue) {
    read.add(key);
    return args.getOrDefault(key, defaultValue);
  }

  public int intArg(String key) {
    return parseInt(key, arg(key));
  }

  public int intArg(String key, int defaultValue) {
    return hasArg(key) ? intArg(key) : defaultValue;
  }

  public long longArg(String key) {
    String value = arg(key);
    try {
      return Long.parseLong(value.replace("_", ""));
    } catch (NumberFormatException e) {
      throw fail(key + "=" + value + " is not a number");
    }
  }

  public long longArg(String key, long defaultValue) {
    return hasArg(key) ? longArg(key) : defaultValue;
  }

  /** A list argument {@code key=(a, b)} (or a single {@code key=a}); empty if absent. */
  public List<String> listArg(String key) {
    if (!hasArg(key)) {
      return List.of();
    }
    String value = arg(key);
    if (value.startsWith("(") && value.endsWith(")")) {
      value = value.substring(1, value.length() - 1);
    }
    if (value.isBlank()) {
      return List.of();
    }
    return Arrays.stream(value.split(",")).map(String::strip).toList();
  }

  /** The arguments no accessor has asked for. */
  Set<String> unreadArgs() {
    Set<String> unread = new HashSet<>(args.keySet());
    unread.removeAll(read);
    return unread;
  }

  /** An error about this directive, naming its file and line; throw it. */
  public ScenarioException fail(String message) {
    return new ScenarioException(where() + ": '" + text + "': " + message);
  }

  String where() {
    return file + ":" + line;
  }

  /** The command line as written. */
  @Override
  public String toString() {
    return text;
  }

  private int parseInt(String key, String value) {
    try {
      return Integer.parseInt(value.replace("_", ""));
    } catch (NumberFormatException e) {
      throw fail(key + "=" + value + " is not a number");
    }
  }

  private static String unquote(String value) {
    return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
        ? value.substring(1, value.length() - 1)
        : value;
  }

  /** Splits on spaces outside parentheses and double quotes. */
  private List<String> tokenize(String s) {
    List<String> tokens = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    int depth = 0;
    boolean quoted = false;
    for (char c : s.toCharArray()) {
      if (c == '"') {
        quoted = !quoted;
      } else if (!quoted && c == '(') {
        depth++;
      } else if (!quoted && c == ')') {
        depth--;
      }
      if (Character.isWhitespace(c) && depth == 0 && !quoted) {
        if (current.length() > 0) {
          tokens.add(current.toString());
          current.setLength(0);
        }
      } else {
        current.append(c);
      }
    }
    if (depth != 0 || quoted) {
      throw new ScenarioException(where() + ": unbalanced parenthesis or quote in '" + s + "'");
    }
    if (current.length() > 0) {
      tokens.add(current.toString());
    }
    if (tokens.isEmpty()) {
      throw new ScenarioException(where() + ": empty directive");
    }
    return tokens;
  }
}
