package dev.tributary.demo;

/**
 * One guided demo: {@code ./tributary demo NAME}. A demo creates what it needs under its own topic
 * names (recreated on every run), narrates each step through its {@link DemoContext}, measures what
 * the cluster did, and records claims ({@link DemoContext#check}) that make up its verdict. It must
 * restore what it stopped (a killed broker restarted, a paused fetcher resumed), also when it
 * fails: use {@code try/finally}.
 *
 * <p>Its texts live in {@code demo/messages.properties} and {@code demo/messages_zh.properties}
 * under the prefix {@code NAME.}: {@code NAME.title}, {@code NAME.summary}, and the keys its steps
 * and checks name (docs/demos.md "How to add a demo").
 */
public interface Demo {
  /** The command-line name, also the message prefix and the banner's {@code name}. */
  String name();

  /** How many {@link DemoContext#step} calls a run makes: the banner shows "step 2 of 5". */
  int steps();

  /** The topics the demo uses, highlighted on the dashboard. */
  java.util.List<String> topics();

  /**
   * Runs the demo against the cluster. Failing claims go through {@link DemoContext#check}; throw
   * {@link DemoException} when the demo cannot go on (the cluster refused, a wait ran out).
   */
  void run(DemoContext ctx) throws Exception;
}
