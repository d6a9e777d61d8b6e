package dev.tributary.demo;

import java.text.NumberFormat;
import java.util.Locale;
import java.util.Map;
import java.util.MissingResourceException;
import java.util.ResourceBundle;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demos' texts in one language: {@code demo/messages.properties} (English) and {@code
 * demo/messages_zh.properties} (Simplified Chinese), UTF-8. Placeholders are {@code {0}}, {@code
 * {1}}, ... filled in order; whole numbers get the language's digit grouping (4,812). No {@link
 * java.text.MessageFormat}: its quoting rules would turn every apostrophe of the English texts into
 * a trap. Kafka's terms (ISR, OSR, AR, LEO, HW, acks, leader epoch, replica.lag.time.max.ms,
 * min.insync.replicas) stay as they are in both catalogues.
 */
public final class Messages {
  static final String BUNDLE = "demo.messages";
  static final Pattern PLACEHOLDER = Pattern.compile("\\{(\\d+)}");

  private final Locale locale;
  private final ResourceBundle bundle;

  private Messages(Locale locale) {
    this.locale = locale;
    // No fallback to the JVM's default locale: English asked is English given, whatever the host.
    this.bundle =
        ResourceBundle.getBundle(
            BUNDLE,
            locale,
            Messages.class.getClassLoader(),
            ResourceBundle.Control.getNoFallbackControl(ResourceBundle.Control.FORMAT_PROPERTIES));
  }

  static Messages of(Locale locale) {
    return new Messages(locale);
  }

  /**
   * The language to speak: {@code --lang zh|en} when given, else the environment's {@code LC_ALL},
   * {@code LC_MESSAGES} or {@code LANG} (the first set, as POSIX orders them): Chinese when it
   * starts with {@code zh}, else English.
   *
   * @param flag the value of {@code --lang}, or null
   * @throws IllegalArgumentException for a {@code --lang} other than zh or en
   */
  static Locale choose(String flag, Map<String, String> env) {
    if (flag != null) {
      return switch (flag.toLowerCase(Locale.ROOT)) {
        case "zh", "zh-cn", "zh_cn" -> Locale.SIMPLIFIED_CHINESE;
        case "en" -> Locale.ENGLISH;
        default ->
            throw new IllegalArgumentException("--lang must be zh or en, not '" + flag + "'");
      };
    }
    for (String name : new String[] {"LC_ALL", "LC_MESSAGES", "LANG"}) {
      String value = env.get(name);
      if (value != null && !value.isBlank()) {
        return value.toLowerCase(Locale.ROOT).startsWith("zh")
            ? Locale.SIMPLIFIED_CHINESE
            : Locale.ENGLISH;
      }
    }
    return Locale.ENGLISH;
  }

  Locale locale() {
    return locale;
  }

  /** The language's code for the banner and the verdict line: {@code en} or {@code zh}. */
  String language() {
    return locale.getLanguage();
  }

  /** The text of {@code key} with its placeholders filled. */
  public String get(String key, Object... args) {
    String pattern;
    try {
      pattern = bundle.getString(key);
    } catch (MissingResourceException e) {
      throw new IllegalArgumentException("no demo message '" + key + "'", e);
    }
    Matcher m = PLACEHOLDER.matcher(pattern);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      int index = Integer.parseInt(m.group(1));
      if (index >= args.length) {
        throw new IllegalArgumentException(
            "demo message '" + key + "' needs argument {" + index + "}");
      }
      m.appendReplacement(out, Matcher.quoteReplacement(format(args[index])));
    }
    m.appendTail(out);
    return out.toString();
  }

  boolean has(String key) {
    return bundle.containsKey(key);
  }

  private String format(Object arg) {
    if (arg instanceof Integer || arg instanceof Long) {
      return NumberFormat.getIntegerInstance(locale).format(arg);
    }
    if (arg instanceof Double || arg instanceof Float) {
      return String.format(locale, "%.1f", ((Number) arg).doubleValue());
    }
    return String.valueOf(arg);
  }
}
