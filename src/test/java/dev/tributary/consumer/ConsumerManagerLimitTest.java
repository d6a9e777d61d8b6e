package dev.tributary.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.group.CoordinatorHarness;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The per-principal cap on consumer instances, on a manual clock. */
class ConsumerManagerLimitTest {
  private final CoordinatorHarness h = CoordinatorHarness.queuedCompletions(3_000).lead();
  private final ConsumerManager consumers =
      new ConsumerManager(
          h.coordinator,
          new InMemoryPartitionReader(),
          includeInternal -> Map.of("orders", 1),
          h.clock,
          h.clock,
          new Random(7),
          "broker-1");
  private final ConsumerSettings settings =
      new ConsumerSettings(
          "binary", "earliest", false, 5_000, 1, 1_000, 10_000, 3_000, List.of("range"), 60_000);

  @Test
  void aPrincipalAtItsCapIsRefusedAndOthersAreNot() {
    consumers.create("g", "a1", settings, "User:alice", 2);
    consumers.create("h", "a2", settings, "User:alice", 2);

    assertThatThrownBy(() -> consumers.create("g", "a3", settings, "User:alice", 2))
        .isInstanceOf(TooManyConsumerInstancesException.class)
        .hasMessageContaining("User:alice already has 2 consumer instances");
    assertThat(consumers.has("g", "a3")).isFalse();
    consumers.create("g", "b1", settings, "User:bob", 2);
  }

  @Test
  void deletedAndExpiredInstancesMakeRoom() {
    consumers.create("g", "a1", settings, "User:alice", 1);
    consumers.delete("g", "a1");
    consumers.create("g", "a2", settings, "User:alice", 1);

    h.clock.advance(61_000); // past consumer.instance.timeout.ms: the tick deletes a2
    assertThat(consumers.has("g", "a2")).isFalse();
    consumers.create("g", "a3", settings, "User:alice", 1);
  }

  @Test
  void aDuplicateNameIsRefusedWithoutTakingASlot() {
    consumers.create("g", "a1", settings, "User:alice", 2);
    assertThatThrownBy(() -> consumers.create("g", "a1", settings, "User:alice", 2))
        .isInstanceOf(ConsumerAlreadyExistsException.class);
    consumers.create("g", "a2", settings, "User:alice", 2);
  }
}
