package dev.tributary;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code ./tributary reassign} and {@code reassignments} refuse bad arguments with a usage error
 * before they look for a broker: run on an empty data directory, a bad command says what is wrong
 * and how to call it, while a well-formed one gets as far as "no running broker". No cluster runs.
 */
@EnabledOnOs(OS.LINUX)
class ReassignCommandArgumentsTest {
  @TempDir Path tmp;

  record Run(int exitCode, String stdout, String stderr) {}

  private static final String NOT_A_LIST =
      "the target replicas must be broker ids separated by commas, e.g. 2,3,4; not ";
  private static final String NOT_A_TIMEOUT =
      "--timeout must be a whole number of seconds, at least 1, not ";

  static Stream<Arguments> badReassignArguments() {
    return Stream.of(
        bad("give a topic, a partition and the target brokers"),
        bad("PARTITION must be a partition number (0, 1, ...), not ''", "orders"),
        bad("PARTITION must be a partition number (0, 1, ...), not 'x'", "orders", "x", "2,3"),
        bad("PARTITION must be a partition number (0, 1, ...), not '-1'", "orders", "-1", "2,3"),
        bad("give the target replicas as broker ids separated by commas", "orders", "0"),
        bad("give the target replicas as broker ids separated by commas", "orders", "0", ""),
        bad(NOT_A_LIST + "','", "orders", "0", ","),
        bad(NOT_A_LIST + "'2,,3'", "orders", "0", "2,,3"),
        bad(NOT_A_LIST + "'2,a'", "orders", "0", "2,a"),
        bad(NOT_A_LIST + "'2, 3'", "orders", "0", "2, 3"),
        bad("too many arguments", "orders", "0", "2", "3"),
        bad("--cancel takes no broker list", "orders", "0", "2,3", "--cancel"),
        bad(NOT_A_TIMEOUT + "'0'", "orders", "0", "2,3", "--timeout", "0"),
        bad(NOT_A_TIMEOUT + "'soon'", "orders", "0", "2,3", "--timeout=soon"),
        bad("--timeout needs a number of seconds", "orders", "0", "2,3", "--timeout"),
        bad(
            "--broker must be a broker id from 1 to 9, not '10'",
            "orders",
            "0",
            "2,3",
            "--broker",
            "10"),
        bad("unknown option '--force'", "orders", "0", "2,3", "--force"),
        bad(
            "--throttle takes a whole number of bytes per second",
            "orders",
            "0",
            "2,3",
            "--throttle",
            "fast"),
        bad(
            "--throttle takes a whole number of bytes per second, and only with a target",
            "orders",
            "0",
            "--cancel",
            "--throttle=1000"),
        bad("--throttle needs bytes per second", "orders", "0", "2,3", "--throttle"),
        bad("'or/ders' is not a topic name", "or/ders", "0", "2,3"));
  }

  private static Arguments bad(String expected, String... args) {
    return Arguments.of(List.of(args), expected);
  }

  @ParameterizedTest(name = "reassign {0}: {1}")
  @MethodSource("badReassignArguments")
  void badArgumentsAreAUsageErrorBeforeAnyBrokerIsAsked(List<String> args, String expected)
      throws Exception {
    Run run = launcher("reassign", args);

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.stderr())
        .contains("reassign: " + expected)
        .contains("usage: ./tributary reassign TOPIC PARTITION BROKER,BROKER,...")
        .doesNotContain("no running broker");
    assertThat(run.stdout()).isEmpty();
  }

  @ParameterizedTest(name = "reassignments {0}: {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "orders payments  | too many arguments",
        "--all            | unknown option '--all'",
        "orders --broker  | --broker needs a value",
      })
  void reassignmentsRefusesBadArgumentsToo(String args, String expected) throws Exception {
    Run run = launcher("reassignments", words(args));

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.stderr())
        .contains(expected)
        .contains("usage:")
        .doesNotContain("no running broker");
  }

  /** The control: these are well formed, so the launcher goes on to look for a running broker. */
  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "reassign       | orders 0 2,3,4",
        "reassign       | orders 0 04,3 --no-wait --timeout 5",
        "reassign       | orders 0 --cancel",
        "reassignments  | ''",
        "reassignments  | orders",
      })
  void wellFormedCommandsGoOnToLookForABroker(String command, String args) throws Exception {
    Run run = launcher(command, words(args));

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.stderr()).contains("no running broker in").doesNotContain("usage:");
  }

  @Test
  void theHelpListsBothCommandsInEnglishAndChinese() throws Exception {
    String english = launcher("help", List.of("--lang", "en")).stdout();
    String chinese = launcher("help", List.of("--lang", "zh")).stdout();

    assertThat(english)
        .contains("reassign TOPIC PARTITION BROKER,BROKER,...", "reassignments [TOPIC]");
    assertThat(chinese)
        .contains("reassign TOPIC PARTITION BROKER,BROKER,...", "reassignments [TOPIC]");
  }

  private static List<String> words(String args) {
    return args.isBlank() ? List.of() : List.of(args.trim().split("\\s+"));
  }

  /** Runs {@code bash ./tributary --data <empty dir> COMMAND ARGS} from the project's root. */
  private Run launcher(String command, List<String> args) throws IOException, InterruptedException {
    Path data = tmp.resolve("data");
    List<String> argv = new ArrayList<>(List.of("bash", "./tributary", "--data", data.toString()));
    argv.add(command);
    argv.addAll(args);
    Path out = tmp.resolve("out");
    Path err = tmp.resolve("err");
    Process process =
        new ProcessBuilder(argv)
            .directory(Path.of(System.getProperty("user.dir")).toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("the launcher finished").isTrue();
    // Nothing is made in the data directory: no broker was started or looked for there.
    assertThat(data).doesNotExist();
    return new Run(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
