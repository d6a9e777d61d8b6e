package dev.tributary.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's headless Chromium driven through its own chromedriver, for the dashboard's browser
 * tests. Without the two binaries a local run skips the test; in CI ({@code CI} set, as {@code
 * .ci/run} does) their absence fails it. Screenshots go to {@code target/screenshots/}; with {@code
 * -Dtributary.screenshots.update=true} also to {@code docs/images/}, where the README shows them.
 */
public final class HeadlessChromium implements AutoCloseable {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private final WebDriver driver;

  private HeadlessChromium(WebDriver driver) {
    this.driver = driver;
  }

  /** A fresh browser with its own profile, {@code width × height} pixels. */
  public static HeadlessChromium start(int width, int height) {
    boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
    if (System.getenv("CI") == null) {
      assumeTrue(
          installed,
          "browser tests need Debian's chromium and chromium-driver (.ci/run installs them)");
    }
    assertThat(installed).as("chromium and chromedriver must be installed in CI").isTrue();
    try {
      Path profile = Files.createTempDirectory("tributary-chromium");
      Path log = Path.of("target", "chromedriver-" + ProcessHandle.current().pid() + ".log");
      Files.createDirectories(log.getParent());
      ChromeOptions options = new ChromeOptions();
      options.setBinary(CHROMIUM.toFile());
      options.addArguments(
          "--headless=new",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-dev-shm-usage",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run",
          "--log-level=3",
          "--window-size=" + width + "," + height,
          "--user-data-dir=" + profile);
      ChromeDriverService service =
          new ChromeDriverService.Builder()
              .usingDriverExecutable(CHROMEDRIVER.toFile())
              .withLogFile(log.toFile())
              .build();
      return new HeadlessChromium(new ChromeDriver(service, options));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public WebDriver driver() {
    return driver;
  }

  /**
   * Runs {@code script} in the page (its arguments as {@code arguments[i]}) and returns what it
   * returns.
   */
  public Object script(String script, Object... args) {
    return ((JavascriptExecutor) driver).executeScript(script, args);
  }

  /**
   * The value of {@code attribute} on the first element matching {@code selector}, or null if none
   * matches.
   */
  public String attribute(String selector, String attribute) {
    Object value =
        script(
            "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;",
            selector,
            attribute);
    return value == null ? null : value.toString();
  }

  /** The text of the first element matching {@code selector}, or null. */
  public String text(String selector) {
    Object value =
        script(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : null;",
            selector);
    return value == null ? null : value.toString();
  }

  /**
   * The texts of every element matching {@code selector}, read in one script (rows may be replaced
   * meanwhile).
   */
  public List<String> texts(String selector) {
    Object value =
        script(
            "return Array.from(document.querySelectorAll(arguments[0]), e => e.textContent);",
            selector);
    return ((List<?>) value).stream().map(String::valueOf).toList();
  }

  /**
   * Saves a screenshot as {@code target/screenshots/<name>.png} (and in docs/images when asked to
   * update them).
   */
  public Path screenshot(String name) {
    try {
      Path shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE).toPath();
      Path target = Path.of("target", "screenshots", name + ".png");
      Files.createDirectories(target.getParent());
      Files.copy(shot, target, StandardCopyOption.REPLACE_EXISTING);
      if (Boolean.getBoolean("tributary.screenshots.update")) {
        Path docs = Path.of("docs", "images", name + ".png");
        Files.createDirectories(docs.getParent());
        Files.copy(shot, docs, StandardCopyOption.REPLACE_EXISTING);
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    driver.quit();
  }
}
