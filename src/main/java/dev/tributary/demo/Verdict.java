package dev.tributary.demo;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The claims one demo run checked, each a sentence with the figures measured ("0 of 4,812
 * acknowledged records lost") and whether it held. A run passes when it checked at least one claim
 * and every claim held.
 */
final class Verdict {
  record Claim(String text, boolean holds) {}

  private final List<Claim> claims = new ArrayList<>();

  boolean add(String text, boolean holds) {
    claims.add(new Claim(text, holds));
    return holds;
  }

  List<Claim> claims() {
    return List.copyOf(claims);
  }

  long failed() {
    return claims.stream().filter(c -> !c.holds()).count();
  }

  boolean passed() {
    return !claims.isEmpty() && failed() == 0;
  }

  /**
   * Prints the claims and one machine-readable line, the same in every language: {@code RESULT
   * demo=NAME verdict=pass|fail claims=N failed=F}.
   */
  void print(String demo, Messages messages, PrintStream out) {
    out.println();
    out.println(
        messages.get(
            passed() ? "verdict.pass" : "verdict.fail", claims.size() - failed(), claims.size()));
    for (Claim c : claims) {
      out.println((c.holds() ? "  ✓ " : "  ✗ ") + c.text());
    }
    out.printf(
        "RESULT demo=%s verdict=%s claims=%d failed=%d%n",
        demo, passed() ? "pass" : "fail", claims.size(), failed());
  }

  /** The exit status of the run: 0 when it passed, 1 when it did not. */
  int exitCode() {
    return passed() ? 0 : 1;
  }
}
