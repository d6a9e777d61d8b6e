package dev.tributary.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Both catalogues say the same things: same keys, same placeholders, and every demo has its texts.
 */
class DemoMessagesTest {
  private static Properties load(String file) throws IOException {
    Properties p = new Properties();
    try (InputStream in = DemoMessagesTest.class.getResourceAsStream("/demo/" + file)) {
      assertThat(in).as(file).isNotNull();
      p.load(new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
    }
    return p;
  }

  private static Set<String> placeholders(String text) {
    Set<String> found = new TreeSet<>();
    Matcher m = Messages.PLACEHOLDER.matcher(text);
    while (m.find()) {
      found.add(m.group());
    }
    return found;
  }

  @Test
  void bothCataloguesHaveTheSameKeysWithTheSamePlaceholders() throws IOException {
    Properties en = load("messages.properties");
    Properties zh = load("messages_zh.properties");
    assertThat(zh.stringPropertyNames()).isEqualTo(en.stringPropertyNames());
    Map<String, Set<String>> enPlaceholders = new TreeMap<>();
    Map<String, Set<String>> zhPlaceholders = new TreeMap<>();
    for (String key : en.stringPropertyNames()) {
      enPlaceholders.put(key, placeholders(en.getProperty(key)));
      zhPlaceholders.put(key, placeholders(zh.getProperty(key)));
    }
    assertThat(zhPlaceholders).isEqualTo(enPlaceholders);
  }

  @Test
  void theChineseCatalogueIsChineseAndKeepsKafkasTerms() throws IOException {
    Properties zh = load("messages_zh.properties");
    assertThat(zh.getProperty("partitions.summary")).contains("分区").contains("murmur2");
    Set<String> withKafkaTerms =
        load("messages.properties").stringPropertyNames().stream()
            .filter(k -> load0("messages.properties").getProperty(k).contains("ISR"))
            .collect(Collectors.toSet());
    for (String key : withKafkaTerms) {
      assertThat(zh.getProperty(key)).as(key).contains("ISR");
    }
  }

  private static Properties load0(String file) {
    try {
      return load(file);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void everyDemoHasATitleAndASummaryInBothLanguages() {
    for (Locale locale : new Locale[] {Locale.ENGLISH, Locale.SIMPLIFIED_CHINESE}) {
      Messages m = Messages.of(locale);
      for (Demo demo : Demos.ALL) {
        assertThat(m.has(demo.name() + ".title")).as(demo.name() + " " + locale).isTrue();
        assertThat(m.has(demo.name() + ".summary")).as(demo.name() + " " + locale).isTrue();
      }
    }
  }

  @Test
  void placeholdersAreFilledInOrderWithTheLanguagesDigitGrouping() {
    Messages en = Messages.of(Locale.ENGLISH);
    assertThat(en.get("partitions.keys.claim", 4812, 4812L))
        .isEqualTo("4,812 of 4,812 records landed in the partition murmur2 predicted");
    assertThat(Messages.of(Locale.SIMPLIFIED_CHINESE).get("partitions.keys.claim", 3, 4812))
        .isEqualTo("4,812 条消息中有 3 条落在 murmur2 预测的分区");
  }

  @Test
  void englishIsEnglishWhateverTheJvmsDefaultLocale() {
    Locale before = Locale.getDefault();
    try {
      Locale.setDefault(Locale.SIMPLIFIED_CHINESE);
      assertThat(Messages.of(Locale.ENGLISH).get("partitions.title"))
          .isEqualTo("Partitions: keys choose partitions");
    } finally {
      Locale.setDefault(before);
    }
  }
}
