package dev.tributary.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's two catalogues (messages.properties, messages_zh.properties) hold the same keys
 * with the same placeholders, and every key the templates and the page scripts use is in them.
 */
class DashboardMessagesCatalogueTest {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{(\\d+)}");

  /** Kafka's configuration names and the product's name read the same in Chinese. */
  private static final Set<String> SAME_IN_BOTH =
      Set.of("page.title", "js.glossary.lag_time.name", "js.glossary.min_isr.name");

  private static final Path RESOURCES = Path.of("src/main/resources");

  private final Properties english = DashboardCatalogue.load("messages.properties");
  private final Properties chinese = DashboardCatalogue.load("messages_zh.properties");

  @Test
  void everyKeyIsInBothCataloguesWithTheSamePlaceholders() {
    assertThat(chinese.stringPropertyNames())
        .as("keys in Chinese and English")
        .containsExactlyInAnyOrderElementsOf(english.stringPropertyNames());
    for (String key : english.stringPropertyNames()) {
      assertThat(placeholders(chinese.getProperty(key)))
          .as("placeholders of " + key)
          .isEqualTo(placeholders(english.getProperty(key)));
      assertThat(chinese.getProperty(key)).as(key).isNotBlank();
    }
  }

  @Test
  void theChineseCatalogueIsChineseAndKeepsKafkasTerms() {
    assertThat(chinese.getProperty("page.partitions")).isEqualTo("分区");
    assertThat(chinese.getProperty("js.glossary.isr.name")).startsWith("ISR").contains("同步副本集合");
    assertThat(chinese.getProperty("js.glossary.hw.name")).startsWith("HW").contains("高水位");
    assertThat(chinese.getProperty("js.glossary.leo.name")).startsWith("LEO").contains("日志末端偏移量");
    assertThat(chinese.getProperty("js.glossary.lag_time.name"))
        .isEqualTo("replica.lag.time.max.ms");
    Set<String> same = new TreeSet<>();
    for (String key : english.stringPropertyNames()) {
      if (english.getProperty(key).length() > 12
          && english.getProperty(key).equals(chinese.getProperty(key))) {
        same.add(key);
      }
    }
    assertThat(same).as("longer messages the same in both: untranslated").isSubsetOf(SAME_IN_BOTH);
  }

  @Test
  void everyKeyTheTemplatesUseIsInTheCatalogue() throws IOException {
    Set<String> used = new TreeSet<>();
    for (String template : List.of("dashboard.html", "login.html")) {
      Matcher m =
          Pattern.compile("#\\{([A-Za-z0-9_.]+)")
              .matcher(Files.readString(RESOURCES.resolve("templates").resolve(template)));
      while (m.find()) {
        used.add(m.group(1));
      }
    }
    assertThat(used).hasSizeGreaterThan(50);
    assertThat(english.stringPropertyNames()).containsAll(used);
  }

  /**
   * Every literal key of a {@code t('...')} or {@code tn(n, '...')} call in the page scripts is in
   * the catalogue ({@code tn} keys with their {@code .one} and {@code .other} forms).
   */
  @Test
  void everyKeyThePageScriptsUseIsInTheCatalogue() throws IOException {
    Pattern call = Pattern.compile("\\bt\\('([A-Za-z0-9_.]+)'");
    Pattern plural = Pattern.compile("\\btn\\([^,()]+(?:\\([^()]*\\))?, '([A-Za-z0-9_.]+)'");
    Set<String> used = new TreeSet<>();
    try (Stream<Path> scripts = Files.list(RESOURCES.resolve("static/js"))) {
      for (Path script : scripts.toList()) {
        String text = Files.readString(script, StandardCharsets.UTF_8);
        Matcher m = call.matcher(text);
        while (m.find()) {
          used.add("js." + m.group(1));
        }
        Matcher p = plural.matcher(text);
        while (p.find()) {
          used.add("js." + p.group(1) + ".one");
          used.add("js." + p.group(1) + ".other");
        }
      }
    }
    assertThat(used).hasSizeGreaterThan(20);
    assertThat(english.stringPropertyNames()).containsAll(used);
  }

  private static Set<String> placeholders(String message) {
    Set<String> found = new TreeSet<>();
    Matcher m = PLACEHOLDER.matcher(message);
    while (m.find()) {
      found.add(m.group(1));
    }
    return found;
  }
}
