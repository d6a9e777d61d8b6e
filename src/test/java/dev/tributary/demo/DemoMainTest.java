package dev.tributary.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line: listing, usage errors (exit 2), and the verdict as the exit status. */
class DemoMainTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(Map<String, String> env, String... argv) {
    return DemoMain.run(
        argv,
        env,
        new ByteArrayInputStream(new byte[0]),
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        null);
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void noNameListsEveryDemoWithItsSummary() {
    assertThat(run(Map.of())).isZero();
    for (Demo demo : Demos.ALL) {
      assertThat(out()).contains(demo.name());
    }
    assertThat(out()).contains("murmur2");
  }

  @Test
  void theListIsInChineseWhenLangSaysSo() {
    assertThat(run(Map.of("LANG", "zh_CN.UTF-8"))).isZero();
    assertThat(out()).contains("引导式演示").contains("分区");
    assertThat(run(Map.of("LANG", "zh_CN.UTF-8"), "--lang", "en")).isZero();
    assertThat(out()).contains("Guided demos");
  }

  @Test
  void usageErrorsExitWithTwo() {
    assertThat(run(Map.of(), "no-such-demo")).isEqualTo(2);
    assertThat(err()).contains("no-such-demo");
    assertThat(run(Map.of(), "partitions", "--lang", "fr")).isEqualTo(2);
    assertThat(run(Map.of(), "partitions", "--bogus")).isEqualTo(2);
    assertThat(run(Map.of(), "partitions", "--url", "ftp://x")).isEqualTo(2);
    assertThat(run(Map.of(), "partitions", "groups")).isEqualTo(2);
    assertThat(run(Map.of(), "partitions", "--lang")).isEqualTo(2);
  }

  @Test
  void aDemoThatCannotReachTheClusterFailsWithOne() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    assertThat(run(Map.of(), "partitions", "--auto", "--url", "http://127.0.0.1:" + port))
        .isEqualTo(1);
    assertThat(err()).contains("no broker answered");
  }

  @Test
  void theApiKeyComesFromTheEnvironmentElseFromTheSecureClustersKeyFile(@TempDir Path data)
      throws Exception {
    assertThat(DemoHttp.token(Map.of(), data)).as("no key anywhere: security off").isNull();
    Files.writeString(data.resolve("admin-api-key"), "admin.secret-from-file\n");
    assertThat(DemoHttp.token(Map.of(), data)).isEqualTo("admin.secret-from-file");
    assertThat(DemoHttp.token(Map.of("TRIBUTARY_TOKEN", "ops.from-env"), data))
        .isEqualTo("ops.from-env");
    assertThat(DemoHttp.token(Map.of(), null)).isNull();
  }

  @Test
  void aVerdictPassesOnlyWhenItCheckedSomethingAndEveryClaimHeld() {
    Messages m = Messages.of(Locale.ENGLISH);
    Verdict none = new Verdict();
    assertThat(none.exitCode()).as("no claim checked is no pass").isEqualTo(1);

    Verdict good = new Verdict();
    good.add("0 of 4,812 acknowledged records lost", true);
    good.add("the follower came back", true);
    assertThat(good.exitCode()).isZero();

    Verdict bad = new Verdict();
    bad.add("0 of 4,812 acknowledged records lost", true);
    bad.add("17 of 4,812 acknowledged records lost", false);
    assertThat(bad.exitCode()).isEqualTo(1);
    PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
    bad.print("acks", m, print);
    assertThat(out())
        .contains("Verdict: FAIL, only 1 of 2 claims hold")
        .contains("✗ 17 of 4,812 acknowledged records lost")
        .contains("RESULT demo=acks verdict=fail claims=2 failed=1");
  }

  @Test
  void aDemoThatStoppedHalfWayFailsWhateverItCheckedBefore() {
    Verdict stopped = new Verdict();
    stopped.add("20 of 30 acknowledged records lost", true);
    stopped.unfinished();

    assertThat(stopped.exitCode()).isEqualTo(1);
    stopped.print(
        "acks", Messages.of(Locale.ENGLISH), new PrintStream(out, true, StandardCharsets.UTF_8));
    assertThat(out())
        .contains("Verdict: FAIL, the demo could not finish (1 of 1 claims checked before it")
        .contains("RESULT demo=acks verdict=fail claims=1 failed=0");
  }
}
