package dev.tributary.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The dashboard in a real headless Chromium: it lists this broker as the alive controller, lists a partition once
 * records are produced and follows its high watermark as more arrive. Needs Debian's chromium and chromium-driver;
 * .ci/run installs them, and in CI their absence fails the test instead of skipping it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class DashboardBrowserTest {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static WebDriver driver;
  private static Path profileDir;

  @LocalServerPort int port;
  private final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void dataDir(DynamicPropertyRegistry registry) throws IOException {
    Path dir = Files.createTempDirectory("tributary-dashboard-test");
    registry.add("tributary.data-dir", dir::toString);
  }

  @BeforeAll
  static void startBrowser() throws IOException {
    boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
    if (System.getenv("CI") == null) {
      assumeTrue(installed, "browser tests need Debian's chromium and chromium-driver (.ci/run installs them)");
    }
    assertThat(installed).as("chromium and chromedriver must be installed in CI").isTrue();
    profileDir = Files.createTempDirectory("tributary-chromium");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        "--log-level=3", "--window-size=1300,700", "--user-data-dir=" + profileDir);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .withLogFile(Files.createTempFile("chromedriver", ".log").toFile())
            .build();
    driver = new ChromeDriver(service, options);
  }

  @AfterAll
  static void stopBrowser() {
    if (driver != null) {
      driver.quit();
    }
  }

  @Test
  void dashboardListsAPartitionAndFollowsItsHighWatermark() throws Exception {
    await().atMost(Duration.ofSeconds(60)).until(() -> status("/actuator/health/readiness") == 200);
    produce("{\"records\":[{\"value\":1},{\"value\":2},{\"value\":3}]}");

    driver.get("http://127.0.0.1:" + port + "/");
    String row = "tr[data-partition='browser-0']";
    await().atMost(Duration.ofSeconds(20)).until(() -> cells(row).length > 0);
    // The replicas cell gives each replica's log end offset, the leader starred.
    assertThat(cells(row)).startsWith("browser", "0", "1", "0", "1 ★ 3", "[1]", "[]", "0", "3", "3");
    assertThat(driver.findElement(By.id("connection")).getText()).isEqualTo("live");
    assertThat(String.join(" ", cells("#brokers tbody tr"))).contains("(this page)", "alive", "controller");

    produce("{\"records\":[{\"value\":4},{\"value\":5}]}");
    await().atMost(Duration.ofSeconds(20)).until(() -> cells(row)[8].equals("5"));
    assertThat(cells(row)[9]).isEqualTo("5");
    assertThat(cells(row)[4]).isEqualTo("1 ★ 5");

    Path screenshot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE).toPath();
    Files.createDirectories(Path.of("target"));
    Files.copy(screenshot, Path.of("target", "dashboard.png"), StandardCopyOption.REPLACE_EXISTING);
  }

  /**
   * The texts of the cells of the first row matching {@code rowSelector}, read in one script: the page replaces its
   * rows on every poll, so reading cell by cell through WebDriver can hit a row that was just replaced.
   */
  private String[] cells(String rowSelector) {
    Object texts =
        ((JavascriptExecutor) driver).executeScript(
            "const row = document.querySelector(arguments[0]);"
                + "return row ? Array.from(row.cells, td => td.textContent) : [];",
            rowSelector);
    return ((List<?>) texts).stream().map(String::valueOf).toArray(String[]::new);
  }

  private int status(String path) throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private void produce(String body) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/topics/browser"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }
}
