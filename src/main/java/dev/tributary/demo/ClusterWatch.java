package dev.tributary.demo;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import tools.jackson.databind.JsonNode;

/**
 * What the crash demos watch for on the dashboard's state ({@code GET /dashboard/state},
 * docs/dashboard-protocol.md): the cluster timeline's events, brokers' states and paused fetchers,
 * and partitions' leaders. Each wait is bounded ({@link Waits}).
 */
final class ClusterWatch {
  private ClusterWatch() {}

  /** An event of the cluster timeline (the state's {@code events[]}). */
  record Event(
      long offset,
      int index,
      int causeIndex,
      String type,
      String topic,
      int partition,
      int brokerId,
      String text,
      String reason) {
    static Event of(JsonNode e) {
      return new Event(
          e.path("offset").asLong(),
          e.path("index").asInt(),
          e.path("cause_index").asInt(-1),
          e.path("type").asString(),
          e.path("topic").isString() ? e.path("topic").asString() : null,
          e.path("partition").asInt(-1),
          e.path("broker_id").asInt(-1),
          e.path("text").asString(),
          e.path("reason").isString() ? e.path("reason").asString() : null);
    }

    /** The text, and the reason when there is one: {@code "text (reason)"}. */
    String describe() {
      if (reason == null || reason.isEmpty()) {
        return text;
      }
      return reason.startsWith(text) ? reason : text + " (" + reason + ")";
    }
  }

  static List<Event> events(JsonNode state) {
    List<Event> events = new ArrayList<>();
    state.path("events").forEach(e -> events.add(Event.of(e)));
    return events;
  }

  /** The metadata offset of the newest event, -1 when none: later events have larger offsets. */
  static long lastEventOffset(DemoCluster cluster) throws IOException, InterruptedException {
    return events(cluster.dashboardState()).stream().mapToLong(Event::offset).max().orElse(-1);
  }

  /**
   * Events of {@code type} after metadata offset {@code after} about {@code brokerId} (-1: any).
   */
  static List<Event> eventsAfter(JsonNode state, long after, String type, int brokerId) {
    return events(state).stream()
        .filter(e -> e.offset() > after && e.type().equals(type))
        .filter(e -> brokerId < 0 || e.brokerId() == brokerId)
        .toList();
  }

  /**
   * Waits for the first event of {@code type} about {@code brokerId} (and {@code topic}, if set).
   */
  static Event awaitEvent(
      DemoCluster cluster, long after, String type, int brokerId, String topic, Duration timeout)
      throws InterruptedException {
    AtomicReference<Event> found = new AtomicReference<>();
    Waits.until(
        "a " + type + " event of broker " + brokerId + (topic == null ? "" : " on " + topic),
        timeout,
        () -> {
          Optional<Event> e =
              eventsAfter(cluster.dashboardState(), after, type, brokerId).stream()
                  .filter(ev -> topic == null || topic.equals(ev.topic()))
                  .findFirst();
          e.ifPresent(found::set);
          return e.isPresent();
        });
    return found.get();
  }

  /** The events of the same batch (one controller decision) that {@code cause} caused. */
  static List<Event> consequences(JsonNode state, Event cause) {
    return events(state).stream()
        .filter(e -> e.offset() == cause.offset() && e.causeIndex() == cause.index())
        .toList();
  }

  /** A broker's row of the state ({@code brokers[]}), if registered. */
  static Optional<JsonNode> broker(JsonNode state, int id) {
    for (JsonNode b : state.path("brokers")) {
      if (b.path("broker_id").asInt() == id) {
        return Optional.of(b);
      }
    }
    return Optional.empty();
  }

  /** Waits until every broker in {@code ids} reports its replica fetcher paused. */
  static void awaitFetchPaused(DemoCluster cluster, Collection<Integer> ids)
      throws InterruptedException {
    Waits.until(
        "the fetchers of brokers " + ids + " paused",
        Duration.ofSeconds(10),
        () -> {
          JsonNode state = cluster.dashboardState();
          long now = state.path("server_time_ms").asLong();
          for (int id : ids) {
            long until =
                broker(state, id).map(b -> b.path("fetch_paused_until_ms").asLong()).orElse(0L);
            if (until <= now) {
              return false;
            }
          }
          return true;
        });
  }

  /** Resumes the fetchers of {@code ids}; a pause of 1 s ends a longer one. Best effort. */
  static void resumeFetching(DemoCluster cluster, Collection<Integer> ids) {
    for (int id : ids) {
      try {
        cluster.pauseFetching(id, 1);
      } catch (IOException | RuntimeException e) {
        // a broker that is down has no fetcher to resume
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * Waits until {@code topic-partition} has a leader other than {@code oldLeader}, as the metadata
   * of the brokers still answering says.
   */
  static DemoCluster.PartitionInfo awaitNewLeader(
      DemoCluster cluster, String topic, int partition, int oldLeader, Duration timeout)
      throws InterruptedException {
    AtomicReference<DemoCluster.PartitionInfo> found = new AtomicReference<>();
    Waits.until(
        "a new leader of " + topic + "-" + partition,
        timeout,
        () -> {
          DemoCluster.PartitionInfo p = cluster.partition(topic, partition);
          found.set(p);
          return p.leader() >= 0 && p.leader() != oldLeader;
        });
    return found.get();
  }

  /**
   * Waits until every partition the dashboard shows with a replica on {@code brokerId} has a leader
   * and all its replicas in sync.
   */
  static void awaitInSync(DemoCluster cluster, int brokerId, Duration timeout)
      throws InterruptedException {
    Waits.until(
        "every partition with a replica on broker " + brokerId + " with its full ISR",
        timeout,
        () -> {
          for (JsonNode p : cluster.dashboardState().path("partitions")) {
            if (!ints(p.path("replicas")).contains(brokerId)) {
              continue;
            }
            if (p.path("leader").asInt(-1) < 0
                || p.path("isr").size() != p.path("replicas").size()) {
              return false;
            }
          }
          return true;
        });
  }

  static List<Integer> ints(JsonNode array) {
    List<Integer> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asInt()));
    return out;
  }
}
