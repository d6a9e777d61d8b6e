package dev.tributary.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The dashboard page in its two languages: Chinese for {@code Accept-Language: zh-CN} and for
 * {@code ?lang=zh} (remembered in a cookie), English otherwise; the scripts' catalogue in the same
 * language.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "tributary.security.enabled=false")
class DashboardLanguagesTest {
  @LocalServerPort int port;
  @Autowired JsonMapper json;
  private final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void dataDir(DynamicPropertyRegistry registry) throws IOException {
    Path dir = Files.createTempDirectory("tributary-dashboard-languages-test");
    registry.add("tributary.data-dir", dir::toString);
  }

  @Test
  void aChineseBrowserGetsTheChinesePage() throws Exception {
    HttpResponse<String> page = get("/", "zh-CN,zh;q=0.9,en;q=0.8", null);
    assertChinese(page.body());
    assertThat(page.headers().firstValue("Set-Cookie"))
        .as("nothing chosen, nothing kept")
        .isEmpty();
  }

  @Test
  void theFirstLanguageThePageSpeaksWins() throws Exception {
    assertChinese(get("/", "fr-FR, zh-TW;q=0.8, en;q=0.5", null).body());
    assertEnglish(get("/", "en-GB, zh-CN;q=0.9", null).body());
    assertEnglish(get("/", "fr-FR, de;q=0.5", null).body());
    assertEnglish(get("/", null, null).body());
  }

  @Test
  void theSwitchChoosesChineseAndTheCookieRemembersIt() throws Exception {
    HttpResponse<String> chosen = get("/?lang=zh", "en-US", null);
    assertChinese(chosen.body());
    String cookie = chosen.headers().firstValue("Set-Cookie").orElseThrow();
    assertThat(cookie).startsWith(DashboardLocales.COOKIE + "=zh;").contains("Path=/");

    String sent = cookie.substring(0, cookie.indexOf(';'));
    assertChinese(get("/", "en-US", sent).body());

    HttpResponse<String> back = get("/?lang=en", "en-US", sent);
    assertEnglish(back.body());
    assertThat(back.headers().firstValue("Set-Cookie").orElseThrow())
        .startsWith(DashboardLocales.COOKIE + "=en;");
  }

  @Test
  void anUnsupportedChoiceIsEnglish() throws Exception {
    HttpResponse<String> page = get("/?lang=fr", "zh-CN", null);
    assertEnglish(page.body());
    assertThat(page.headers().firstValue("Set-Cookie").orElseThrow())
        .startsWith(DashboardLocales.COOKIE + "=en;");
    assertEnglish(get("/", "zh-CN", DashboardLocales.COOKIE + "=xx").body());
  }

  @Test
  void theScriptsCatalogueComesInEitherLanguage() throws Exception {
    JsonNode zh = json.readTree(get("/dashboard/messages?lang=zh", null, null).body());
    assertThat(zh.get("lang").asString()).isEqualTo("zh");
    assertThat(zh.get("messages").get("js.glossary.hw.name").asString()).contains("高水位");
    JsonNode en = json.readTree(get("/dashboard/messages?lang=de", null, null).body());
    assertThat(en.get("lang").asString()).isEqualTo("en");
    assertThat(en.get("messages").get("js.glossary.hw.name").asString())
        .isEqualTo("HW (high watermark)");
    assertThat(en.get("messages").size()).isEqualTo(zh.get("messages").size());
  }

  private static void assertChinese(String html) {
    assertThat(html).contains("<html lang=\"zh\"");
    assertThat(html).contains("实时集群仪表盘").contains("<h2 id=\"glossary-heading\">词汇表</h2>");
    assertThat(html).contains("\"lang\":\"zh\"").contains("同步副本集合");
    assertThat(html).doesNotContain("live cluster dashboard");
  }

  private static void assertEnglish(String html) {
    assertThat(html).contains("<html lang=\"en\"");
    assertThat(html).contains("live cluster dashboard").contains(">Glossary</h2>");
    assertThat(html).contains("\"lang\":\"en\"").contains("in-sync replicas");
    assertThat(html).doesNotContain("实时集群仪表盘");
  }

  private HttpResponse<String> get(String path, String acceptLanguage, String cookie)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
    if (acceptLanguage != null) {
      request.header("Accept-Language", acceptLanguage);
    }
    if (cookie != null) {
      request.header("Cookie", cookie);
    }
    HttpResponse<String> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
    return response;
  }
}
