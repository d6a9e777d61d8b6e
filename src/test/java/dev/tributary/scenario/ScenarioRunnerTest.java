package dev.tributary.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tributary.scenario.ScenarioRunner.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/** The scenario runner itself: parsing, checking, failure messages and rewriting. */
class ScenarioRunnerTest {
  @TempDir Path dir;

  /** Echoes a directive: its command, its arguments (all read), its input. */
  private static String echo(Directive d) {
    StringBuilder out = new StringBuilder(d.command());
    d.args().keySet().forEach(k -> out.append(' ').append(k).append(':').append(d.arg(k)));
    d.input().forEach(l -> out.append('\n').append("in ").append(l));
    return out.toString();
  }

  @Test
  void directivesReachTheHandlerWithTheirArgumentsInputAndLine() throws IOException {
    Path file =
        write(
            "a.txt",
            """
            # a comment
            send to=b n=3 list=(x, y z) reason="two words" flag
            first input
            second input
            ----
            ignored

            tick
            ----
            """);
    List<Directive> seen = new ArrayList<>();
    ScenarioRunner.run(
        file,
        "t/a.txt",
        d -> {
          seen.add(d);
          d.args().keySet().forEach(d::hasArg);
          return "ignored";
        },
        Mode.REWRITE);
    Directive send = seen.get(0);
    assertEquals("send", send.command());
    assertEquals(2, send.line());
    assertEquals("b", send.arg("to"));
    assertEquals(3, send.intArg("n"));
    assertEquals(7L, send.longArg("missing", 7));
    assertEquals(List.of("x", "y z"), send.listArg("list"));
    assertEquals("two words", send.arg("reason"));
    assertTrue(send.hasArg("flag"));
    assertEquals("", send.arg("flag"));
    assertEquals(List.of("first input", "second input"), send.input());
    assertEquals("tick", seen.get(1).command());
    assertEquals(8, seen.get(1).line());
  }

  @Test
  void aFileWhoseOutputsMatchPasses() throws IOException {
    Path file = write("ok.txt", "go x=1\n----\ngo x:1\n\nstop\n----\nstop\n");
    ScenarioRunner.run(file, "t/ok.txt", ScenarioRunnerTest::echo, Mode.CHECK);
  }

  @Test
  void aDifferingOutputFailsNamingTheFileTheLineAndTheDiff() throws IOException {
    Path file = write("bad.txt", "# story\ngo x=1\n----\ngo x:1\n\ngo x=2\n----\nsame\ngo x:3\n");
    AssertionFailedError e =
        assertThrows(
            AssertionFailedError.class,
            () -> ScenarioRunner.run(file, "t/bad.txt", d -> "same\n" + echo(d), Mode.CHECK));
    String message = e.getMessage();
    assertTrue(message.startsWith("t/bad.txt:2: output of 'go x=1' differs"), message);
    assertTrue(message.contains("\n+ same\n  go x:1\n"), message);

    Path second = write("bad2.txt", "go x=2\n----\nsame\ngo x:3\n");
    e =
        assertThrows(
            AssertionFailedError.class,
            () -> ScenarioRunner.run(second, "t/bad2.txt", d -> "same\n" + echo(d), Mode.CHECK));
    assertTrue(e.getMessage().contains("  same\n- go x:3\n+ go x:2\n"), e.getMessage());
  }

  @Test
  void rewritingReplacesOnlyTheOutputsAndUsesTheDoubleSeparatorForBlankLines() throws IOException {
    Path file =
        write(
            "r.txt",
            """
            # keep this comment

            go x=1
            ----
            stale

            # and this one
            gap
            ----
            old

            next
            ----
            """);
    ScenarioRunner.run(
        file,
        "t/r.txt",
        d ->
            switch (d.command()) {
              case "gap" -> "before\n\nafter";
              case "next" -> "";
              default -> echo(d) + "   \n\n";
            },
        Mode.REWRITE);
    assertEquals(
        """
        # keep this comment

        go x=1
        ----
        go x:1

        # and this one
        gap
        ----
        ----
        before

        after
        ----
        ----

        next
        ----
        """,
        Files.readString(file));
  }

  @Test
  void aRewrittenFilePassesItsCheck() throws IOException {
    Path file = write("rr.txt", "gap\n----\n----\nold\n\nold\n----\n----\n\ngo x=2\n----\n");
    ScenarioHandler handler = d -> d.command().equals("gap") ? "a\n\nb" : echo(d);
    ScenarioRunner.run(file, "t/rr.txt", handler, Mode.REWRITE);
    ScenarioRunner.run(file, "t/rr.txt", handler, Mode.CHECK);
    assertEquals(
        "gap\n----\n----\na\n\nb\n----\n----\n\ngo x=2\n----\ngo x:2\n", Files.readString(file));
  }

  @Test
  void anOutputThatLosesItsBlankLinesGetsTheSingleSeparatorAndABlankLineAfterIt()
      throws IOException {
    Path file = write("d.txt", "gap\n----\n----\na\n\nb\n----\n----\ngo x=2\n----\ngo x:2\n");
    ScenarioHandler handler = d -> d.command().equals("gap") ? "single" : echo(d);
    ScenarioRunner.run(file, "t/d.txt", handler, Mode.REWRITE);
    assertEquals("gap\n----\nsingle\n\ngo x=2\n----\ngo x:2\n", Files.readString(file));
    ScenarioRunner.run(file, "t/d.txt", handler, Mode.CHECK);
  }

  @Test
  void anArgumentTheHandlerNeverReadsFails() throws IOException {
    Path file = write("typo.txt", "tick ms=5 msec=6\n----\n5\n");
    ScenarioException e =
        assertThrows(
            ScenarioException.class,
            () ->
                ScenarioRunner.run(
                    file, "t/typo.txt", d -> String.valueOf(d.intArg("ms")), Mode.CHECK));
    assertTrue(e.getMessage().startsWith("t/typo.txt:1: 'tick ms=5 msec=6'"), e.getMessage());
    assertTrue(e.getMessage().contains("[msec]"), e.getMessage());
  }

  @Test
  void aHandlerThatThrowsFailsNamingTheFileAndLine() throws IOException {
    Path file = write("boom.txt", "ok\n----\nok\n\nboom\n----\n");
    ScenarioException e =
        assertThrows(
            ScenarioException.class,
            () ->
                ScenarioRunner.run(
                    file,
                    "t/boom.txt",
                    d -> {
                      if (d.command().equals("boom")) {
                        throw new IllegalStateException("kaput");
                      }
                      return "ok";
                    },
                    Mode.REWRITE));
    assertTrue(e.getMessage().startsWith("t/boom.txt:5: 'boom' threw kaput"), e.getMessage());
    assertEquals("ok\n----\nok\n\nboom\n----\n", Files.readString(file), "nothing rewritten");
  }

  @Test
  void aHandlerThatHoldsResourcesIsClosedAfterItsFileWhetherItPassedOrNot() throws IOException {
    final class Closing implements ScenarioHandler, AutoCloseable {
      int closed;

      @Override
      public String run(Directive d) {
        return "out";
      }

      @Override
      public void close() {
        closed++;
      }
    }
    Closing passing = new Closing();
    ScenarioRunner.run(write("p.txt", "go\n----\nout\n"), "t/p.txt", passing, Mode.CHECK);
    assertEquals(1, passing.closed);
    Closing failing = new Closing();
    Path bad = write("f.txt", "go\n----\nsomething else\n");
    assertThrows(
        AssertionFailedError.class, () -> ScenarioRunner.run(bad, "t/f.txt", failing, Mode.CHECK));
    assertEquals(1, failing.closed);
  }

  @Test
  void aDirectiveWithoutItsSeparatorOrAnUnclosedOutputIsAnError() throws IOException {
    Path noSeparator = write("n.txt", "go\nmore input\n\n----\n");
    assertThrows(
        ScenarioException.class,
        () -> ScenarioRunner.run(noSeparator, "t/n.txt", d -> "", Mode.CHECK));
    Path unclosed = write("u.txt", "go\n----\n----\nout\n----\n");
    assertThrows(
        ScenarioException.class,
        () -> ScenarioRunner.run(unclosed, "t/u.txt", d -> "out", Mode.CHECK));
  }

  @Test
  void eachFileOfTheDirectoryIsOneTestInNameOrderAndAnEmptyDirectoryIsAnError() throws IOException {
    Files.createDirectories(dir.resolve("s"));
    Files.writeString(dir.resolve("s/b.txt"), "go\n----\ngo\n");
    Files.writeString(dir.resolve("s/a.txt"), "go\n----\ngo\n");
    Files.writeString(dir.resolve("s/notes.md"), "not a scenario");
    List<DynamicTest> tests =
        ScenarioRunner.tests(dir, "s", () -> ScenarioRunnerTest::echo, Mode.CHECK).toList();
    assertEquals(
        List.of("a.txt", "b.txt"), tests.stream().map(DynamicTest::getDisplayName).toList());

    Files.createDirectories(dir.resolve("empty"));
    assertThrows(
        ScenarioException.class,
        () -> ScenarioRunner.tests(dir, "empty", () -> ScenarioRunnerTest::echo, Mode.CHECK));
  }

  private Path write(String name, String text) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, text);
    return file;
  }
}
