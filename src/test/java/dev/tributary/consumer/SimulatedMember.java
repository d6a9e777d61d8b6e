package dev.tributary.consumer;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.CoordinatorApi;
import dev.tributary.group.CoordinatorHarness;
import dev.tributary.group.GroupError;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * One consumer's {@link GroupMembership} wired to the harness's coordinator through a link that the
 * test can cut (every request fails, as a connection refused) or slow (a request reaches the
 * coordinator {@code requestDelayMs} later; its answer comes back at once), and a client that polls
 * or does not.
 */
final class SimulatedMember {
  static final String TOPIC = "orders";
  static final int PARTITIONS = 6;

  final String name;
  final GroupMembership membership;
  private final CoordinatorHarness h;

  /** The client calls in; while false it is paused (or gone). */
  boolean polling = true;

  /** Requests fail while the clock is below this. */
  long cutUntilMs = Long.MIN_VALUE;

  /** Requests arrive this much later; 0: at once. */
  long requestDelayMs;

  /** SyncGroup requests only arrive this much later. */
  long syncDelayMs;

  /** Heartbeat answers reach the member this much later. */
  long heartbeatAnswerDelayMs;

  SimulatedMember(String name, CoordinatorHarness h, ConsumerSettings settings) {
    this.name = name;
    this.h = h;
    this.membership =
        new GroupMembership(
            CoordinatorHarness.GROUP,
            name,
            "/10.0.0.1",
            settings,
            new Link(),
            h.clock,
            new Listener());
  }

  static ConsumerSettings settings() {
    return new ConsumerSettings(
        "binary", "earliest", false, 5_000, 1, 1_000, 10_000, 3_000, List.of("range"), 300_000);
  }

  /** One client step: poll (if polling), then the protocol's tick. */
  void step() {
    if (polling) {
      membership.onClientPoll();
    }
    membership.tick();
  }

  List<TopicPartition> owned() {
    return membership.ownedPartitions();
  }

  @Override
  public String toString() {
    return name
        + (polling ? "" : " (paused)")
        + ": "
        + membership.statusLine()
        + " owns "
        + owned();
  }

  private final class Listener implements GroupMembership.Listener {
    @Override
    public Set<String> subscribedTopics() {
      return Set.of(TOPIC);
    }

    @Override
    public Map<String, Integer> partitionCounts(Set<String> topics) {
      return topics.contains(TOPIC) ? Map.of(TOPIC, PARTITIONS) : Map.of();
    }

    @Override
    public CompletableFuture<Void> onRevoked(
        List<TopicPartition> partitions, String memberId, int generationId) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void onLost(List<TopicPartition> partitions) {}

    @Override
    public void onAssigned(List<TopicPartition> partitions) {}
  }

  /** The member's connection to the coordinator. */
  private final class Link implements CoordinatorApi {
    private <T> CompletableFuture<T> send(long extraDelayMs, Supplier<CompletableFuture<T>> call) {
      if (h.clock.milliseconds() < cutUntilMs) {
        return CompletableFuture.failedFuture(new IOException(name + ": connection refused"));
      }
      long delayMs = requestDelayMs + extraDelayMs;
      if (delayMs <= 0) {
        return call.get();
      }
      CompletableFuture<T> answer = new CompletableFuture<>();
      h.clock.schedule(
          delayMs,
          () ->
              call.get()
                  .whenComplete(
                      (v, e) -> {
                        if (e != null) {
                          answer.completeExceptionally(e);
                        } else {
                          answer.complete(v);
                        }
                      }));
      return answer;
    }

    @Override
    public CompletableFuture<JoinResult> joinGroup(JoinRequest request) {
      return send(0, () -> h.coordinator.joinGroup(request));
    }

    @Override
    public CompletableFuture<SyncResult> syncGroup(SyncRequest request) {
      return send(syncDelayMs, () -> h.coordinator.syncGroup(request));
    }

    @Override
    public CompletableFuture<GroupError> heartbeat(
        String groupId, String memberId, int generation) {
      CompletableFuture<GroupError> sent =
          send(0, () -> h.coordinator.heartbeat(groupId, memberId, generation));
      if (heartbeatAnswerDelayMs <= 0) {
        return sent;
      }
      CompletableFuture<GroupError> late = new CompletableFuture<>();
      sent.whenComplete(
          (v, e) ->
              h.clock.schedule(
                  heartbeatAnswerDelayMs,
                  () -> {
                    if (e != null) {
                      late.completeExceptionally(e);
                    } else {
                      late.complete(v);
                    }
                  }));
      return late;
    }

    @Override
    public CompletableFuture<GroupError> leaveGroup(String groupId, String memberId, String why) {
      return send(0, () -> h.coordinator.leaveGroup(groupId, memberId, why));
    }

    @Override
    public CompletableFuture<GroupError> commitOffsets(
        String groupId,
        String memberId,
        int generationId,
        Map<TopicPartition, dev.tributary.group.OffsetAndMetadata> offsets) {
      return send(0, () -> h.coordinator.commitOffsets(groupId, memberId, generationId, offsets));
    }

    @Override
    public CompletableFuture<OffsetFetchResult> fetchOffsets(
        String groupId, List<TopicPartition> partitions) {
      return send(0, () -> h.coordinator.fetchOffsets(groupId, partitions));
    }

    @Override
    public CompletableFuture<DescribeResult> describeGroup(String groupId) {
      return h.coordinator.describeGroup(groupId);
    }

    @Override
    public CompletableFuture<List<GroupListing>> listGroups() {
      return h.coordinator.listGroups();
    }
  }
}
