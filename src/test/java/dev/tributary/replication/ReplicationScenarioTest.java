package dev.tributary.replication;

import dev.tributary.scenario.ScenarioRunner;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replication state machine's stories, step by step, in {@code
 * src/test/resources/scenarios/replication}: one test per file, the commands of {@link
 * ReplicationScenario}, each file with its own brokers and log directories. Regenerate the expected
 * outputs after an intended change with {@code -Dscenarios.rewrite=true}, and read the diff against
 * Kafka's replication protocol before committing it.
 */
class ReplicationScenarioTest {
  @TempDir Path root;

  @TestFactory
  Stream<DynamicTest> replicationScenarios() {
    AtomicInteger files = new AtomicInteger();
    return ScenarioRunner.tests(
        "replication",
        () -> new ReplicationScenario(root.resolve("scenario-" + files.incrementAndGet())));
  }
}
