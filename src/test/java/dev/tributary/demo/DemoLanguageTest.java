package dev.tributary.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** --lang first, then LC_ALL, LC_MESSAGES, LANG (zh* is Chinese), else English. */
class DemoLanguageTest {
  @Test
  void theLangOptionWinsOverTheEnvironment() {
    assertThat(Messages.choose("en", Map.of("LANG", "zh_CN.UTF-8"))).isEqualTo(Locale.ENGLISH);
    assertThat(Messages.choose("zh", Map.of("LANG", "en_US.UTF-8")))
        .isEqualTo(Locale.SIMPLIFIED_CHINESE);
  }

  @Test
  void theEnvironmentChoosesWhenNoOptionIsGiven() {
    assertThat(Messages.choose(null, Map.of("LANG", "zh_CN.UTF-8")))
        .isEqualTo(Locale.SIMPLIFIED_CHINESE);
    assertThat(Messages.choose(null, Map.of("LC_ALL", "zh_TW.UTF-8", "LANG", "en_US.UTF-8")))
        .as("LC_ALL overrides LANG")
        .isEqualTo(Locale.SIMPLIFIED_CHINESE);
    assertThat(Messages.choose(null, Map.of("LC_ALL", "C.UTF-8", "LANG", "zh_CN.UTF-8")))
        .isEqualTo(Locale.ENGLISH);
    assertThat(Messages.choose(null, Map.of("LANG", "de_DE.UTF-8"))).isEqualTo(Locale.ENGLISH);
  }

  @Test
  void englishWithoutAnyHint() {
    assertThat(Messages.choose(null, Map.of())).isEqualTo(Locale.ENGLISH);
  }

  @Test
  void anotherLanguageIsAUsageError() {
    assertThatThrownBy(() -> Messages.choose("fr", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("zh or en");
  }
}
