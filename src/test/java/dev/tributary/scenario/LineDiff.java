package dev.tributary.scenario;

import java.util.List;

/**
 * A line diff for failure messages: {@code " "} same, {@code "- "} expected only, {@code "+ "}
 * actual only.
 */
final class LineDiff {
  private LineDiff() {}

  /** The lines of {@code expected} and {@code actual} aligned on a longest common subsequence. */
  static String diff(List<String> expected, List<String> actual) {
    int n = expected.size();
    int m = actual.size();
    int[][] common =
        new int[n + 1][m + 1]; // common[i][j]: LCS length of expected[i..], actual[j..]
    for (int i = n - 1; i >= 0; i--) {
      for (int j = m - 1; j >= 0; j--) {
        common[i][j] =
            expected.get(i).equals(actual.get(j))
                ? common[i + 1][j + 1] + 1
                : Math.max(common[i + 1][j], common[i][j + 1]);
      }
    }
    StringBuilder out = new StringBuilder();
    int i = 0;
    int j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && expected.get(i).equals(actual.get(j))) {
        out.append("  ").append(expected.get(i++)).append('\n');
        j++;
      } else if (i < n && (j == m || common[i + 1][j] >= common[i][j + 1])) {
        out.append("- ").append(expected.get(i++)).append('\n');
      } else {
        out.append("+ ").append(actual.get(j++)).append('\n');
      }
    }
    return out.toString();
  }
}
