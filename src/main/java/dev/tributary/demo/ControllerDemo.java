package dev.tributary.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * The active controller's broker is killed: the remaining Raft voters elect a new controller (the
 * time measured until the cluster names it), which fences the dead broker and moves the leaderships
 * of the partitions it led to in-sync followers (the timeline shows both, the moves as consequences
 * of the fencing); restarted, the broker registers again and is unfenced once it has caught up with
 * the metadata log.
 */
final class ControllerDemo implements Demo {
  static final String TOPIC = "demo-controller";
  static final int PARTITIONS = 3;
  static final int SHOWN = 6;
  static final Duration ELECTION = Duration.ofSeconds(30);
  static final Duration REJOIN = Duration.ofSeconds(60);

  @Override
  public String name() {
    return "controller";
  }

  @Override
  public int steps() {
    return 4;
  }

  @Override
  public List<String> topics() {
    return List.of(TOPIC);
  }

  @Override
  public void run(DemoContext ctx) throws Exception {
    DemoCluster cluster = ctx.cluster();
    List<String> keys = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      keys.add(TOPIC + "-" + p);
    }
    ctx.highlight(keys);

    ctx.step("setup", TOPIC, PARTITIONS);
    cluster.recreateTopic(TOPIC, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
    int[] found = new int[1];
    Waits.until("an active controller", ELECTION, () -> (found[0] = cluster.controllerId()) >= 0);
    int controller = found[0];
    JsonNode state = cluster.dashboardState();
    long epochBefore = state.path("controller_epoch").asLong();
    Map<String, JsonNode> led = ledBy(state, controller);
    ctx.result("setup.controller", controller, epochBefore);
    ctx.result("setup.led", controller, led.size(), shown(led.keySet()));
    ctx.look("setup.look", controller);

    try {
      ctx.step("elect", controller);
      long eventsBefore = ClusterWatch.lastEventOffset(cluster);
      ctx.action("elect.kill", controller);
      ctx.brokers().kill(controller);
      long killed = System.nanoTime();
      int[] next = new int[1];
      Waits.until(
          "a new controller",
          ELECTION,
          () -> {
            next[0] = cluster.controllerId();
            return next[0] >= 0 && next[0] != controller;
          });
      long electionMs = (System.nanoTime() - killed) / 1_000_000;
      int newController = next[0];
      ClusterWatch.Event elected =
          ClusterWatch.awaitEvent(
              cluster, eventsBefore, "controller_elected", newController, null, ELECTION);
      long epochAfter = cluster.dashboardState().path("controller_epoch").asLong();
      ctx.result("elect.elected", newController, electionMs, epochBefore, epochAfter);
      ctx.result("elect.event", elected.describe());
      ctx.look("elect.look", newController);
      ctx.check(
          newController != controller && epochAfter > epochBefore,
          "elect.claim",
          newController,
          electionMs,
          epochBefore,
          epochAfter);

      ctx.step("fence", controller);
      ClusterWatch.Event fenced =
          ClusterWatch.awaitEvent(
              cluster, eventsBefore, "broker_fenced", controller, null, ELECTION);
      long fencedMs = (System.nanoTime() - killed) / 1_000_000;
      ctx.result("fence.fenced", fenced.describe(), fencedMs);
      // Every partition it led and that had another in-sync replica must get one as its leader.
      List<String> eligible =
          led.entrySet().stream()
              .filter(e -> ClusterWatch.ints(e.getValue().path("isr")).size() > 1)
              .map(Map.Entry::getKey)
              .toList();
      Waits.until(
          "the partitions broker " + controller + " led moved",
          ELECTION,
          () -> ledBy(cluster.dashboardState(), controller).isEmpty());
      JsonNode after = cluster.dashboardState();
      int moved = 0;
      for (String key : eligible) {
        JsonNode p = partition(after, key);
        if (p != null && p.path("leader").asInt(-1) >= 0) {
          moved++;
        }
      }
      // Leader changes first: they are what the fencing is for.
      List<ClusterWatch.Event> consequences =
          ClusterWatch.consequences(after, fenced).stream()
              .sorted(
                  java.util.Comparator.comparing(
                      (ClusterWatch.Event e) -> !"leader_changed".equals(e.type())))
              .toList();
      ctx.result("fence.moved", moved, led.size(), consequences.size());
      for (ClusterWatch.Event e : consequences.subList(0, Math.min(SHOWN, consequences.size()))) {
        ctx.raw("    " + e.text());
      }
      ctx.look("fence.look", controller);
      ctx.check(
          moved == eligible.size() && fenced.brokerId() == controller,
          "fence.claim",
          controller,
          moved,
          eligible.size(),
          fencedMs);

      ctx.step("rejoin", controller);
      long eventsBeforeRestart = ClusterWatch.lastEventOffset(cluster);
      ctx.action("rejoin.restart", controller);
      ctx.brokers().start(controller);
      ClusterWatch.Event registered =
          ClusterWatch.awaitEvent(
              cluster, eventsBeforeRestart, "broker_registered", controller, null, REJOIN);
      ClusterWatch.Event unfenced =
          ClusterWatch.awaitEvent(
              cluster, eventsBeforeRestart, "broker_unfenced", controller, null, REJOIN);
      ctx.result("rejoin.registered", registered.describe());
      ctx.result("rejoin.unfenced", unfenced.describe());
      ClusterWatch.awaitInSync(cluster, controller, REJOIN);
      JsonNode back = cluster.dashboardState();
      String stateNow =
          ClusterWatch.broker(back, controller).map(b -> b.path("state").asString()).orElse("?");
      ctx.result("rejoin.now", controller, stateNow, cluster.controllerId());
      ctx.look("rejoin.look", controller);
      ctx.check(
          "alive".equals(stateNow) && unfenced.offset() >= registered.offset(),
          "rejoin.claim",
          controller,
          stateNow);
    } finally {
      if (!ctx.brokers().isRunning(controller)) {
        ctx.brokers().start(controller);
      }
    }
  }

  /** The partitions (by key) broker {@code id} leads in the dashboard's state. */
  private static Map<String, JsonNode> ledBy(JsonNode state, int id) {
    Map<String, JsonNode> led = new LinkedHashMap<>();
    for (JsonNode p : state.path("partitions")) {
      if (p.path("leader").asInt(-1) == id) {
        led.put(p.path("key").asString(), p);
      }
    }
    return led;
  }

  private static JsonNode partition(JsonNode state, String key) {
    for (JsonNode p : state.path("partitions")) {
      if (key.equals(p.path("key").asString())) {
        return p;
      }
    }
    return null;
  }

  private static String shown(java.util.Collection<String> keys) {
    List<String> list = List.copyOf(keys);
    return list.size() <= SHOWN
        ? String.join(", ", list)
        : String.join(", ", list.subList(0, SHOWN)) + ", … (+" + (list.size() - SHOWN) + ")";
  }
}
