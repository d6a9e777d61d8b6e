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
 * {@code ./tributary balance} and {@code decommission} refuse bad arguments with a usage error
 * before they look for a broker, as {@link ReassignCommandArgumentsTest} shows for {@code
 * reassign}; {@code decommission} also refuses a broker this data directory does not have, or its
 * only one. Well-formed commands get as far as "no running broker". No cluster runs: the data
 * directories are empty, or hold only the brokers' conf files.
 */
@EnabledOnOs(OS.LINUX)
class BalanceCommandArgumentsTest {
  @TempDir Path tmp;

  record Run(int exitCode, String stdout, String stderr) {}

  private static final String NOT_IDS =
      "--exclude must be broker ids from 1 to 9 separated by commas, e.g. 3 or 3,4; not ";
  private static final String NOT_MAX_MOVES =
      "--max-moves must be a whole number of moves at a time, at least 1, not ";

  static Stream<Arguments> badBalanceArguments() {
    return Stream.of(
        bad("--exclude needs broker ids, e.g. 3 or 3,4", "--exclude"),
        bad(
            "--throttle must be a whole number of bytes per second, not '2MB'",
            "--throttle",
            "2MB"),
        bad("--throttle needs bytes per second", "--throttle"),
        bad("--exclude needs broker ids separated by commas", "--exclude="),
        bad("--exclude needs broker ids separated by commas", "--exclude", ""),
        bad(NOT_IDS + "','", "--exclude", ","),
        bad(NOT_IDS + "'3,'", "--exclude", "3,"),
        bad(NOT_IDS + "'3,,4'", "--exclude", "3,,4"),
        bad(NOT_IDS + "'3,a'", "--exclude=3,a"),
        bad(NOT_IDS + "'3, 4'", "--exclude", "3, 4"),
        bad(NOT_IDS + "'0'", "--exclude", "0"),
        bad(NOT_IDS + "'10'", "--exclude", "10"),
        bad("--exclude names broker 3 twice", "--exclude", "3,4,3"),
        bad("--max-moves needs a number", "--max-moves"),
        bad(NOT_MAX_MOVES + "'two'", "--max-moves", "two"),
        bad(NOT_MAX_MOVES + "'0'", "--max-moves", "0"),
        bad(NOT_MAX_MOVES + "'-1'", "--max-moves", "-1"),
        bad(NOT_MAX_MOVES + "'1.5'", "--max-moves=1.5"),
        bad(NOT_MAX_MOVES + "''", "--max-moves="),
        bad("--timeout must be a whole number of seconds, at least 1, not '0'", "--timeout", "0"),
        bad("--broker must be a broker id from 1 to 9, not '10'", "--broker", "10"),
        bad("unknown option '--force'", "--dry-run", "--force"),
        bad("unexpected argument '3' (brokers to empty go after --exclude", "3"));
  }

  private static Arguments bad(String expected, String... args) {
    return Arguments.of(List.of(args), expected);
  }

  @ParameterizedTest(name = "balance {0}: {1}")
  @MethodSource("badBalanceArguments")
  void badBalanceArgumentsAreAUsageErrorBeforeAnyBrokerIsAsked(List<String> args, String expected)
      throws Exception {
    Run run = launcher(emptyData(), "balance", args);

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.stderr())
        .contains("balance: " + expected)
        .contains("usage: ./tributary balance [--dry-run] [--exclude ID,ID]")
        .contains("./tributary decommission ID")
        .doesNotContain("no running broker");
    assertThat(run.stdout()).isEmpty();
  }

  @ParameterizedTest(name = "decommission {0}: {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "''              | give the id of the broker to empty and stop",
        "--timeout 60    | give the id of the broker to empty and stop",
        "x               | ID must be a broker id from 1 to 9, not 'x'",
        "0               | ID must be a broker id from 1 to 9, not '0'",
        "10              | ID must be a broker id from 1 to 9, not '10'",
        "3 4             | one broker at a time",
        "3 --timeout 0   | --timeout must be a whole number of seconds, at least 1, not '0'",
        "3 --timeout     | --timeout needs a number of seconds",
        "3 --force       | unknown option '--force'",
        "3               | broker 3 is not a broker of",
      })
  void badDecommissionArgumentsAreAUsageError(String args, String expected) throws Exception {
    Run run = launcher(emptyData(), "decommission", words(args));

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.stderr())
        .contains("decommission: " + expected)
        .contains("./tributary decommission ID [--timeout SECONDS]")
        .doesNotContain("no running broker");
    assertThat(run.stdout()).isEmpty();
  }

  @Test
  void decommissionRefusesABrokerThisDataDirectoryDoesNotHave() throws Exception {
    Path data = dataWithBrokers(1, 2, 3);

    Run run = launcher(data, "decommission", List.of("5"));

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.stderr())
        .contains("decommission: broker 5 is not a broker of " + data + " (its brokers: 1 2 3)")
        .contains("usage:");
  }

  @Test
  void decommissionRefusesTheOnlyBroker() throws Exception {
    Run run = launcher(dataWithBrokers(1), "decommission", List.of("1"));

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.stderr())
        .contains("decommission: broker 1 is the only broker of")
        .contains("its replicas have nowhere to go")
        .contains("usage:");
  }

  /** The controls: well formed, so the launcher goes on to look for a running broker. */
  @ParameterizedTest(name = "balance {0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "''",
        "--dry-run",
        "--dry-run --exclude=1",
        "--exclude 3,4 --max-moves 2 --timeout 60",
        "--max-moves=9999",
      })
  void wellFormedBalanceGoesOnToLookForABroker(String args) throws Exception {
    Run run = launcher(emptyData(), "balance", words(args));

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.stderr()).contains("no running broker in").doesNotContain("usage:");
  }

  @Test
  void wellFormedDecommissionLooksForAnotherRunningBroker() throws Exception {
    Run run = launcher(dataWithBrokers(1, 2), "decommission", List.of("2", "--timeout", "60"));

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.stderr())
        .contains("no running broker in")
        .contains("besides broker 2")
        .doesNotContain("usage:");
    assertThat(run.stdout()).isEmpty();
  }

  @Test
  void theHelpListsBothCommandsInEnglishAndChinese() throws Exception {
    String english = launcher(emptyData(), "help", List.of("--lang", "en")).stdout();
    String chinese = launcher(emptyData(), "help", List.of("--lang", "zh")).stdout();

    for (String help : List.of(english, chinese)) {
      assertThat(help)
          .contains("balance [--dry-run] [--exclude ID,ID] [--max-moves N]")
          .contains("decommission ID [--timeout ")
          .contains("add-broker [--rack ");
    }
    assertThat(english).contains("unregister it (the cluster no longer lists");
    assertThat(chinese).contains("均衡计划").contains("并注销（集群不再列出它）");
  }

  private static List<String> words(String args) {
    return args.isBlank() ? List.of() : List.of(args.trim().split("\\s+"));
  }

  private Path emptyData() {
    return tmp.resolve("data");
  }

  /** A data directory that knows these brokers (their conf files), none of them running. */
  private Path dataWithBrokers(int... ids) throws IOException {
    Path data = Files.createDirectories(tmp.resolve("data"));
    for (int id : ids) {
      Files.writeString(data.resolve("broker-" + id + ".conf"), "PORT=" + (18080 + id) + "\n");
    }
    return data;
  }

  /** Runs {@code bash ./tributary --data DATA COMMAND ARGS} from the project's root. */
  private Run launcher(Path data, String command, List<String> args)
      throws IOException, InterruptedException {
    List<String> before = listing(data);
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
    // Nothing is made or removed in the data directory: no broker was started or stopped there.
    assertThat(listing(data)).isEqualTo(before);
    return new Run(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  /** The data directory's files, or an empty list when it does not exist. */
  private static List<String> listing(Path data) throws IOException {
    if (!Files.exists(data)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(data)) {
      return files.map(Path::toString).sorted().toList();
    }
  }
}
