package dev.tributary.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.context.MessageSource;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * The page scripts' share of the message bundles: every key under {@code js.} in {@code
 * messages.properties}, resolved for a locale through the same {@link MessageSource} that
 * Thymeleaf's {@code #{...}} uses, so the page and its scripts read one catalogue. A key missing
 * from {@code messages_zh.properties} resolves to its English text (the base bundle). Values are
 * the raw patterns: the scripts' {@code t(key, ...args)} fills {@code {0}}, {@code {1}} itself and
 * knows no other MessageFormat syntax.
 */
@Component
class DashboardCatalogue {
  static final String PREFIX = "js.";
  static final String BUNDLE = "messages.properties";

  private final MessageSource messages;
  private final JsonMapper json;
  private final TreeSet<String> keys;
  private final Map<String, String> scripts = new ConcurrentHashMap<>();

  DashboardCatalogue(MessageSource messages, JsonMapper json) {
    this.messages = messages;
    this.json = json;
    this.keys = new TreeSet<>();
    for (String key : load(BUNDLE).stringPropertyNames()) {
      if (key.startsWith(PREFIX)) {
        keys.add(key);
      }
    }
  }

  /** A bundle as Properties, read as UTF-8 (as Boot's spring.messages.encoding reads it). */
  static Properties load(String resource) {
    Properties properties = new Properties();
    try (InputStream in = DashboardCatalogue.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is missing from the classpath");
      }
      properties.load(new InputStreamReader(in, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return properties;
  }

  /** The scripts' messages in {@code locale}, by key (sorted). */
  Map<String, String> messages(Locale locale) {
    Map<String, String> resolved = new TreeMap<>();
    for (String key : keys) {
      resolved.put(key, messages.getMessage(key, null, key, locale));
    }
    return resolved;
  }

  /**
   * {@code {"lang": "zh", "messages": {...}}} as JSON that is safe inside a {@code <script>}
   * element: {@code <}, {@code >} and {@code &} are escaped, so no message can close the element.
   */
  String scriptJson(Locale locale) {
    return scripts.computeIfAbsent(
        locale.getLanguage(),
        lang -> {
          String text = json.writeValueAsString(Map.of("lang", lang, "messages", messages(locale)));
          return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026");
        });
  }
}
