package dev.tributary.scenario;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.opentest4j.AssertionFailedError;

/**
 * Runs data-driven scenario files (the format of {@link ScenarioFile}): each file is one JUnit
 * dynamic test, its directives run in order by a fresh {@link ScenarioHandler}, each output
 * compared with the expected text under the directive.
 *
 * <pre>
 *   &#64;TestFactory
 *   Stream&lt;DynamicTest&gt; scenarios() {
 *     return ScenarioRunner.tests("group", GroupScenario::new);   // src/test/resources/scenarios/group/*.txt
 *   }
 * </pre>
 *
 * <p>A file fails at its first directive whose output differs, naming the file, the line and the
 * difference ({@code -expected +actual}); later directives build on earlier ones, so they are not
 * run. A directive the handler throws on, or one with an argument the handler never read, fails the
 * same way.
 *
 * <p>After an intended change, regenerate the expected outputs: run the tests with {@code
 * -Dscenarios.rewrite=true} (e.g. {@code ./mvnw -o -Dtest=GroupScenarioTest
 * -Dscenarios.rewrite=true test}). Every directive runs, each block's output is replaced by what it
 * printed, and everything else in the file is kept as written. The files are read from and written
 * to the source tree ({@code src/test/resources/scenarios/}), never the build's copy, so a rewrite
 * is a diff to read and commit.
 */
public final class ScenarioRunner {
  /** The system property that turns checking into rewriting. */
  public static final String REWRITE_PROPERTY = "scenarios.rewrite";

  private ScenarioRunner() {}

  /** What a run does with the expected outputs. */
  public enum Mode {
    /** Compare each output with the expected text; fail at the first difference. */
    CHECK,
    /** Replace each expected text with the output. */
    REWRITE
  }

  /**
   * One test per {@code *.txt} file in {@code src/test/resources/scenarios/<directory>}, in name
   * order, each with a handler from {@code handlers}. Fails if there is none, so a mistyped
   * directory cannot pass by running nothing.
   */
  public static Stream<DynamicTest> tests(
      String directory, Supplier<? extends ScenarioHandler> handlers) {
    return tests(scenariosRoot(), directory, handlers, modeFromSystemProperty());
  }

  static Stream<DynamicTest> tests(
      Path root, String directory, Supplier<? extends ScenarioHandler> handlers, Mode mode) {
    Path dir = root.resolve(directory);
    List<Path> files;
    try (Stream<Path> listing = Files.list(dir)) {
      files = listing.filter(p -> p.toString().endsWith(".txt")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("no scenario directory " + dir.toAbsolutePath(), e);
    }
    if (files.isEmpty()) {
      throw new ScenarioException("no scenario files (*.txt) in " + dir.toAbsolutePath());
    }
    return files.stream()
        .map(
            file ->
                DynamicTest.dynamicTest(
                    file.getFileName().toString(),
                    file.toUri(),
                    () -> run(file, directory + "/" + file.getFileName(), handlers.get(), mode)));
  }

  /**
   * Runs one file with {@code handler}. In {@link Mode#CHECK} throws an {@link
   * AssertionFailedError} at the first differing output; in {@link Mode#REWRITE} writes the file
   * back with the outputs (only if one changed). A handler that is {@link AutoCloseable} (it holds
   * files, logs, ...) is closed afterwards, whether the file passed or not.
   */
  public static void run(Path file, String name, ScenarioHandler handler, Mode mode)
      throws IOException {
    try {
      runAll(file, name, handler, mode);
    } finally {
      if (handler instanceof AutoCloseable closeable) {
        try {
          closeable.close();
        } catch (Exception e) {
          throw new ScenarioException(name + ": the handler failed to close: " + e, e);
        }
      }
    }
  }

  private static void runAll(Path file, String name, ScenarioHandler handler, Mode mode)
      throws IOException {
    ScenarioFile scenario =
        ScenarioFile.parse(name, Files.readAllLines(file, StandardCharsets.UTF_8));
    List<List<String>> outputs = new ArrayList<>();
    for (ScenarioFile.Block block : scenario.blocks) {
      List<String> actual = runOne(block.directive(), handler);
      if (mode == Mode.CHECK && !actual.equals(block.expected())) {
        throw new AssertionFailedError(
            block.directive().where()
                + ": output of '"
                + block.directive()
                + "' differs (-expected +actual):\n"
                + LineDiff.diff(block.expected(), actual)
                + "(after an intended change, regenerate with -D"
                + REWRITE_PROPERTY
                + "=true and read the diff)",
            String.join("\n", block.expected()),
            String.join("\n", actual));
      }
      outputs.add(actual);
    }
    if (mode == Mode.REWRITE) {
      String text = scenario.render(outputs);
      if (!text.equals(Files.readString(file, StandardCharsets.UTF_8))) {
        Files.writeString(file, text, StandardCharsets.UTF_8);
      }
    }
  }

  private static List<String> runOne(Directive directive, ScenarioHandler handler) {
    String output;
    try {
      output = handler.run(directive);
    } catch (ScenarioException e) {
      throw e;
    } catch (RuntimeException | AssertionError e) {
      throw new ScenarioException(
          directive.where() + ": '" + directive + "' threw " + e.getMessage(), e);
    }
    if (!directive.unreadArgs().isEmpty()) {
      throw directive.fail("the handler does not know the argument(s) " + directive.unreadArgs());
    }
    return ScenarioFile.normalize(output);
  }

  static Mode modeFromSystemProperty() {
    return Boolean.getBoolean(REWRITE_PROPERTY) ? Mode.REWRITE : Mode.CHECK;
  }

  /**
   * {@code <project>/src/test/resources/scenarios}: Maven's forked test JVM runs in the project
   * directory and says so in {@code basedir}; IDEs run there too.
   */
  static Path scenariosRoot() {
    String base = System.getProperty("basedir", System.getProperty("user.dir"));
    return Path.of(base, "src", "test", "resources", "scenarios");
  }
}
