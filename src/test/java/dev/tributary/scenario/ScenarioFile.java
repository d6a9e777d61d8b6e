package dev.tributary.scenario;

import java.util.ArrayList;
import java.util.List;

/**
 * A scenario file parsed into its blocks, keeping every line so that it can be written back with
 * new outputs and nothing else changed (comments, blank lines, the directives as written).
 *
 * <pre>
 *   # a comment (only between blocks)
 *   command key=value list=(a, b) flag      ← the directive
 *   an input line                           ← optional input, up to ----
 *   ----
 *   expected output, any number of lines    ← ends at a blank line or the end of the file
 *
 *   command
 *   ----
 *   ----
 *   output that contains
 *
 *   a blank line is written between two ---- lines, and closed by two more
 *   ----
 *   ----
 * </pre>
 *
 * The format is cockroachdb/datadriven's, which etcd raft's {@code testdata/*.txt} use.
 */
final class ScenarioFile {
  static final String SEPARATOR = "----";

  /** One directive with its expected output, and where it sits in the file (0-based lines). */
  record Block(
      Directive directive, List<String> expected, int firstLine, int separatorLine, int endLine) {}

  final String name;
  final List<String> lines;
  final List<Block> blocks;

  private ScenarioFile(String name, List<String> lines, List<Block> blocks) {
    this.name = name;
    this.lines = lines;
    this.blocks = blocks;
  }

  /** Parses {@code lines} of the file called {@code name} (for messages). */
  static ScenarioFile parse(String name, List<String> lines) {
    List<Block> blocks = new ArrayList<>();
    int i = 0;
    while (i < lines.size()) {
      String line = lines.get(i);
      if (line.isBlank() || line.strip().startsWith("#")) {
        i++;
        continue;
      }
      int first = i++;
      List<String> input = new ArrayList<>();
      while (i < lines.size() && !lines.get(i).equals(SEPARATOR)) {
        if (lines.get(i).isBlank()) {
          throw new ScenarioException(
              name + ":" + (first + 1) + ": '" + line.strip() + "' has no " + SEPARATOR);
        }
        input.add(lines.get(i++));
      }
      if (i == lines.size()) {
        throw new ScenarioException(
            name + ":" + (first + 1) + ": '" + line.strip() + "' has no " + SEPARATOR);
      }
      int separator = i++;
      List<String> expected = new ArrayList<>();
      if (i < lines.size() && lines.get(i).equals(SEPARATOR)) {
        i++; // the double-separator form: the output may hold blank lines
        while (!(i + 1 < lines.size()
            && lines.get(i).equals(SEPARATOR)
            && lines.get(i + 1).equals(SEPARATOR))) {
          if (i >= lines.size()) {
            throw new ScenarioException(
                name
                    + ":"
                    + (separator + 2)
                    + ": output not closed by two "
                    + SEPARATOR
                    + " lines");
          }
          expected.add(lines.get(i++));
        }
        i += 2;
      } else {
        while (i < lines.size() && !lines.get(i).isBlank()) {
          expected.add(lines.get(i++));
        }
      }
      Directive directive = new Directive(name, first + 1, line, input);
      blocks.add(new Block(directive, normalize(expected), first, separator, i));
    }
    return new ScenarioFile(name, List.copyOf(lines), List.copyOf(blocks));
  }

  /** Output as compared: trailing spaces of each line and trailing blank lines dropped. */
  static List<String> normalize(List<String> output) {
    List<String> out = new ArrayList<>();
    output.forEach(l -> out.add(l.stripTrailing()));
    while (!out.isEmpty() && out.get(out.size() - 1).isEmpty()) {
      out.remove(out.size() - 1);
    }
    return out;
  }

  static List<String> normalize(String output) {
    return normalize(output == null ? List.of() : List.of(output.split("\n", -1)));
  }

  /** The file's text with block {@code i}'s output replaced by {@code outputs.get(i)}. */
  String render(List<List<String>> outputs) {
    StringBuilder out = new StringBuilder();
    int next = 0;
    for (int b = 0; b < blocks.size(); b++) {
      Block block = blocks.get(b);
      appendLines(out, lines.subList(next, block.separatorLine()));
      List<String> output = outputs.get(b);
      if (output.stream().anyMatch(String::isEmpty)) {
        appendLines(out, List.of(SEPARATOR, SEPARATOR));
        appendLines(out, output);
        appendLines(out, List.of(SEPARATOR, SEPARATOR));
      } else {
        appendLines(out, List.of(SEPARATOR));
        appendLines(out, output);
        if (block.endLine() < lines.size() && !lines.get(block.endLine()).isBlank()) {
          out.append('\n'); // a single-separator output must end at a blank line
        }
      }
      next = block.endLine();
    }
    appendLines(out, lines.subList(next, lines.size()));
    return out.toString();
  }

  private static void appendLines(StringBuilder out, List<String> lines) {
    lines.forEach(l -> out.append(l).append('\n'));
  }
}
