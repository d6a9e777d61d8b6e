package dev.tributary.group;

import dev.tributary.scenario.ScenarioRunner;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The group coordinator's stories, step by step, in {@code src/test/resources/scenarios/group}: one
 * test per file, the commands of {@link GroupScenario}. Regenerate the expected outputs after an
 * intended change with {@code -Dscenarios.rewrite=true}, and read the diff.
 */
class GroupScenarioTest {
  @TestFactory
  Stream<DynamicTest> groupScenarios() {
    return ScenarioRunner.tests("group", GroupScenario::new);
  }
}
