package dev.tributary.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The dashboard on a broker with security on: sign-in with an API key (a signed cookie), the page
 * and its actions only for those allowed them, the socket's upgrade authenticated, in a real
 * browser too, and a cookie that changes things only from the cluster's own pages (CSRF).
 */
class DashboardSecurityApiTest extends SecuredBrokerTestSupport {
  /** The sign-in page in the browser's language, or the one chosen; a wrong key says so in it. */
  @Test
  void theSignInPageSpeaksChineseToAChineseBrowserAndEnglishWhenAsked() {
    Response chinese = send("GET", "/login", null, null, "Accept-Language", "zh-CN,zh;q=0.9");
    assertThat(chinese.body()).contains("<html lang=\"zh\"").contains("用 API 密钥登录仪表盘");
    assertThat(chinese.body()).contains(">登录</button>").doesNotContain("Sign in to the dashboard");
    Response wrong =
        send(
            "POST",
            "/login",
            null,
            "key_id=nobody&secret=wrong",
            "Content-Type",
            "application/x-www-form-urlencoded",
            "Accept-Language",
            "zh-CN");
    assertThat(wrong.status()).isEqualTo(401);
    assertThat(wrong.body()).contains("这个密钥 id 和密钥不匹配任何 API 密钥。");

    Response english = send("GET", "/login?lang=en", null, null, "Accept-Language", "zh-CN");
    assertThat(english.body()).contains("<html lang=\"en\"").contains("Sign in to the dashboard");
    assertThat(english.headers().firstValue("Set-Cookie").orElseThrow())
        .startsWith("tributary-lang=en;");
  }

  @Test
  void theDashboardSignsInWithAnApiKeyAndShowsActionsOnlyToAdmins() throws Exception {
    Response page = send("GET", "/", null, null, "Accept", "text/html");
    assertThat(page.status()).isEqualTo(302);
    assertThat(page.headers().firstValue("Location").orElseThrow()).endsWith("/login");
    assertThat(send("GET", "/login", null, null).body()).contains("name=\"key_id\"");

    Key reader = newKey("User:viewer-" + COUNTER.incrementAndGet());
    acl(reader.principal(), "READ", "CLUSTER", "LITERAL", "kafka-cluster");
    Response wrong = signIn(reader.id(), "wrong");
    assertThat(wrong.status()).isEqualTo(401);
    assertThat(wrong.body()).contains("do not match");
    Response signedIn = signIn(reader.id(), reader.secret());
    assertThat(signedIn.status()).isEqualTo(302);
    String cookie = signedIn.headers().firstValue("Set-Cookie").orElseThrow();
    assertThat(cookie).contains("HttpOnly").contains("SameSite=Strict");
    String session = cookie.substring(0, cookie.indexOf(';'));

    Response dashboard = send("GET", "/", null, null, "Cookie", session, "Accept", "text/html");
    assertThat(dashboard.status()).isEqualTo(200);
    assertThat(dashboard.body()).contains("data-can-act=\"false\"").contains(reader.principal());
    assertThat(dashboard.body()).contains("id=\"sign-out\"");
    // The fault actions, adding and decommissioning brokers among them, are for admins only.
    for (String path :
        new String[] {
          "/dashboard/actions/brokers/1/crash",
          "/dashboard/actions/cluster/add-broker",
          "/dashboard/actions/brokers/1/decommission"
        }) {
      assertError(
          send(
              "POST",
              path,
              null,
              "{}",
              "Cookie",
              session,
              "Content-Type",
              "application/json",
              "Origin",
              "http://127.0.0.1:" + port),
          403,
          40305,
          "ADMIN the cluster");
    }

    // The socket's upgrade needs the sign-in too.
    URI ws = URI.create("ws://127.0.0.1:" + port + "/dashboard/ws");
    String origin = "http://127.0.0.1:" + port;
    assertThat(upgrade(ws, origin, null)).isEqualTo("refused: 401");
    assertThat(upgrade(ws, origin, session)).isEqualTo("open");

    // A forged or tampered cookie is nobody. One signature character is changed where all six of
    // its bits count (the last character of an unpadded 32-byte HMAC carries two unused bits, so
    // changing only the end can leave the signature's bytes as they were).
    int at = session.length() - 5;
    String forged =
        session.substring(0, at)
            + (session.charAt(at) == 'A' ? 'B' : 'A')
            + session.substring(at + 1);
    assertThat(send("GET", "/dashboard/state", null, null, "Cookie", forged).status())
        .isEqualTo(401);

    Key admin = newKey("User:ops-" + COUNTER.incrementAndGet());
    acl(admin.principal(), "ADMIN", "CLUSTER", "LITERAL", "kafka-cluster");
    String adminCookie =
        signIn(admin.id(), admin.secret()).headers().firstValue("Set-Cookie").orElseThrow();
    Response adminPage =
        send("GET", "/", null, null, "Cookie", adminCookie.substring(0, adminCookie.indexOf(';')));
    assertThat(adminPage.body()).contains("data-can-act=\"true\"");
  }

  /**
   * In a real browser: a wrong secret shows the error on the sign-in page; a reader signed in sees
   * the live page without the action forms and fault buttons, and its socket is live.
   */
  @Test
  void inABrowserAReaderSignsInAndSeesTheLivePageWithoutActions() {
    createTopic("shown" + COUNTER.incrementAndGet()); // so the page has a topic to offer deleting
    Key reader = newKey("User:browser-" + COUNTER.incrementAndGet());
    acl(reader.principal(), "READ", "CLUSTER", "LITERAL", "kafka-cluster");
    dev.tributary.browser.HeadlessChromium browser =
        dev.tributary.browser.HeadlessChromium.start(1300, 900);
    try {
      org.openqa.selenium.WebDriver driver = browser.driver();
      driver.get("http://127.0.0.1:" + port + "/");
      await().atMost(Duration.ofSeconds(20)).until(() -> driver.getCurrentUrl().endsWith("/login"));
      signInWith(driver, reader.id(), "not-the-secret");
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> !driver.findElements(org.openqa.selenium.By.id("login-error")).isEmpty());
      assertThat(browser.text("#login-error")).contains("do not match");
      signInWith(driver, reader.id(), reader.secret());
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> "live".equals(browser.attribute("#connection", "data-state")));
      assertThat(browser.text("#principal")).isEqualTo(reader.principal());
      // Signing out sits beside the principal it signs out.
      assertThat(
              driver
                  .findElement(org.openqa.selenium.By.cssSelector(".whoami #sign-out"))
                  .isDisplayed())
          .isTrue();
      assertThat(driver.findElement(org.openqa.selenium.By.id("actions")).isDisplayed()).isFalse();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  !driver
                      .findElements(
                          org.openqa.selenium.By.cssSelector("[data-action='delete-topic']"))
                      .isEmpty());
      assertThat(
              driver.findElements(
                  org.openqa.selenium.By.cssSelector("[data-action='delete-topic']")))
          .noneMatch(org.openqa.selenium.WebElement::isDisplayed);
      browser.screenshot("dashboard-reader");
    } finally {
      browser.close();
    }
  }

  /** The page's icon is served to anyone, like its stylesheet: the sign-in page shows it too. */
  @Test
  void theFaviconIsServedWithoutSigningIn() {
    for (String path : new String[] {"/favicon.ico", "/favicon.svg"}) {
      Response icon = send("GET", path, null, null);
      assertThat(icon.status()).as(path).isEqualTo(200);
      assertThat(icon.headers().firstValue("Content-Type").orElseThrow())
          .as(path)
          .startsWith("image/");
    }
    assertThat(send("GET", "/login", null, null).body())
        .contains("<link rel=\"icon\" href=\"/favicon.svg\"");
  }

  private static void signInWith(org.openqa.selenium.WebDriver driver, String id, String secret) {
    org.openqa.selenium.WebElement keyId = driver.findElement(org.openqa.selenium.By.id("key-id"));
    keyId.clear();
    keyId.sendKeys(id);
    driver.findElement(org.openqa.selenium.By.id("secret")).sendKeys(secret);
    driver.findElement(org.openqa.selenium.By.id("sign-in")).click();
  }

  /**
   * A dashboard cookie goes with every request the browser sends to the host, from any page: a
   * change made with one must come from the cluster's own pages (CSRF).
   */
  @Test
  void aDashboardSessionChangesThingsOnlyFromTheClustersOwnPages() {
    String cookie = signIn("admin", ADMIN_SECRET).headers().firstValue("Set-Cookie").orElseThrow();
    String session = cookie.substring(0, cookie.indexOf(';'));
    String acl =
        "{\"principal\":\"User:csrf\",\"operation\":\"ADMIN\",\"resource_type\":\"CLUSTER\","
            + "\"resource_name\":\"kafka-cluster\"}";
    assertError(
        send(
            "POST",
            v3("/acls"),
            null,
            acl,
            "Cookie",
            session,
            "Content-Type",
            "text/plain",
            "Origin",
            "http://127.0.0.1:9999"),
        403,
        40306,
        "cluster's own pages");
    assertError(
        send("POST", v3("/acls"), null, acl, "Cookie", session, "Content-Type", "application/json"),
        403,
        40306,
        "cluster's own pages");
    assertThat(send("GET", v3("/acls?principal=User:csrf"), ADMIN, null).json().get("data"))
        .isEmpty();
    // From the broker's own page it works; reading needs no origin.
    assertThat(
            send(
                    "POST",
                    v3("/acls"),
                    null,
                    acl,
                    "Cookie",
                    session,
                    "Content-Type",
                    "application/json",
                    "Origin",
                    "http://127.0.0.1:" + port)
                .status())
        .isEqualTo(201);
    assertThat(send("GET", "/v3/whoami", null, null, "Cookie", session).status()).isEqualTo(200);
  }

  private String upgrade(URI uri, String origin, String cookie) throws Exception {
    WebSocket.Builder builder = HttpClient.newHttpClient().newWebSocketBuilder();
    builder.header("Origin", origin);
    if (cookie != null) {
      builder.header("Cookie", cookie);
    }
    try {
      WebSocket socket =
          builder.buildAsync(uri, new WebSocket.Listener() {}).get(20, TimeUnit.SECONDS);
      socket.abort();
      return "open";
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof java.net.http.WebSocketHandshakeException h) {
        return "refused: " + h.getResponse().statusCode();
      }
      throw e;
    }
  }
}
