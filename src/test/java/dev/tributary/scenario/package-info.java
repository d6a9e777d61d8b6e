/**
 * Data-driven scenario tests, in the manner of etcd raft's {@code testdata/*.txt}
 * (cockroachdb/datadriven's format): a text file is a story of directives, each followed by the
 * state it should leave, so that a reader follows a protocol step by step and a change in behaviour
 * shows up as a diff of text.
 *
 * <p>{@link dev.tributary.scenario.ScenarioRunner} runs the files of one directory under {@code
 * src/test/resources/scenarios/} as JUnit dynamic tests, with a {@link
 * dev.tributary.scenario.ScenarioHandler} per file that knows the commands of its area (the group
 * coordinator's in {@code dev.tributary.group.GroupScenario}, the replication state machine's in
 * {@code dev.tributary.replication.ReplicationScenario}). {@code -Dscenarios.rewrite=true}
 * regenerates the expected outputs from the code; read the diff before committing it.
 */
package dev.tributary.scenario;
