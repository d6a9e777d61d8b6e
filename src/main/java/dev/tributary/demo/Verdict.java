package dev.tributary.demo;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The claims one demo run checked, each a sentence with the figures measured ("0 of 4,812
 * acknowledged records lost") and whether it held. A run passes when it finished, checked at least
 * one claim and every claim held: a demo that stopped half-way fails whatever it checked before.
 */
final class Verdict {
  record Claim(String text, boolean holds) {}

  private final List<Claim> claims = new ArrayList<>();
  private boolean unfinished;

  boolean add(String text, boolean holds) {
    claims.add(new Claim(text, holds));
    return holds;
  }

  List<Claim> claims() {
    return List.copyOf(claims);
  }

  /** The demo stopped before its end (it could not go on): the run fails. */
  void unfinished() {
    unfinished = true;
  }

  long failed() {
    return claims.stream().filter(c -> !c.holds()).count();
  }

  boolean passed() {
    return !unfinished && !claims.isEmpty() && failed() == 0;
  }

  /**
   * Prints the claims and one machine-readable line, the same in every language: {@code RESULT
   * demo=NAME verdict=pass|fail claims=N failed=F}.
   */
  void print(String demo, Messages messages, PrintStream out) {
    out.println();
    String headline =
        passed() ? "verdict.pass" : unfinished ? "verdict.unfinished" : "verdict.fail";
    out.println(messages.get(headline, claims.size() - failed(), claims.size()));
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
