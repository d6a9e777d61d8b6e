package dev.tributary.api;

import java.util.concurrent.CompletableFuture;

/**
 * Answers for handlers that return a future. Spring MVC answers any returned future with an async
 * dispatch: the request goes through Tomcat, the servlet filters, Spring Security and MVC's handler
 * lookup a second time, even when the future was already complete. On the hot paths most futures
 * are (a produce with acks=1, or acks=all on a partition whose ISR is its leader; a read of records
 * already there), and the second pass cost about a sixth of a produce's broker CPU
 * (docs/benchmarks.md). Handlers there declare {@code Object} and return {@link #nowIfDone}: MVC
 * picks the return value handler by the value's runtime type, so a complete answer is written on
 * the first pass and an incomplete one still goes the asynchronous way.
 */
final class Answers {
  private Answers() {}

  /**
   * The future's value if it has completed normally with one, else the future itself. A failed
   * future stays a future, so its exception reaches the handlers the asynchronous way, as before.
   */
  static Object nowIfDone(CompletableFuture<?> answer) {
    if (answer.isDone() && !answer.isCompletedExceptionally()) {
      Object value = answer.join();
      if (value != null) {
        return value;
      }
    }
    return answer;
  }
}
