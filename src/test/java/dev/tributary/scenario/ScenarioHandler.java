package dev.tributary.scenario;

/**
 * Runs the directives of one scenario file, in order, against the system under test. One handler
 * object serves one file: it holds that file's world (clock, log, coordinator, ...) from the first
 * directive to the last.
 */
@FunctionalInterface
public interface ScenarioHandler {
  /**
   * Carries out {@code directive} and describes what happened: the text the runner compares with
   * the expected output under the directive's {@code ----}. Trailing spaces and trailing blank
   * lines are ignored. Throw (e.g. {@link Directive#fail}) for a directive that makes no sense; the
   * runner reports it with its file and line.
   */
  String run(Directive directive);
}
