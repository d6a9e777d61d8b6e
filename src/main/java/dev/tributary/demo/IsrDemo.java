package dev.tributary.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;

/**
 * A follower that stops fetching leaves the ISR after replica.lag.time.max.ms; acks=all goes on
 * with min.insync.replicas 2; it catches up and returns. AR = ISR + OSR at every step, as the
 * dashboard's state says them.
 */
final class IsrDemo implements Demo {
  static final String TOPIC = "demo-isr";
  static final String KEY = TOPIC + "-0";
  static final int PAUSE_SECONDS = 60;

  private int arChecks;
  private int arHeld;

  @Override
  public String name() {
    return "isr";
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
    arChecks = 0;
    arHeld = 0;
    DemoCluster cluster = ctx.cluster();
    ctx.highlight(List.of(KEY));

    ctx.step("setup", TOPIC);
    cluster.recreateTopic(TOPIC, 1, 3, Map.of("min.insync.replicas", "2"));
    DemoCluster.PartitionInfo p = cluster.partition(TOPIC, 0);
    cluster.produceTo(TOPIC, 0, HwDemo.numbers(0, 10), "all");
    showSets(ctx, cluster);
    JsonNode leaderRow = brokerRow(cluster.dashboardState(), p.leader());
    long lagMaxMs = leaderRow.path("replica_lag_time_max_ms").asLong(-1);
    if (lagMaxMs <= 0) {
      throw new DemoException("broker " + p.leader() + " did not say its replica.lag.time.max.ms");
    }
    ctx.result("setup.lag", p.leader(), lagMaxMs);
    ctx.look("setup.look", KEY);

    int follower =
        p.replicas().stream().filter(r -> r != p.leader()).reduce((a, b) -> b).orElseThrow();
    ctx.step("pause", follower, lagMaxMs);
    int sent = 10;
    try {
      cluster.pauseFetching(follower, PAUSE_SECONDS);
      long pausedAtNanos = System.nanoTime();
      ctx.action("pause.paused", follower, PAUSE_SECONDS);
      // Records keep arriving with acks=1, so the follower falls behind the leader's LEO.
      List<Integer> next = new ArrayList<>();
      long[] produced = {sent};
      Waits.until(
          "broker " + follower + " to leave the ISR of " + KEY,
          Duration.ofMillis(lagMaxMs + 30_000),
          () -> {
            next.clear();
            next.add((int) produced[0]);
            cluster.produceTo(TOPIC, 0, next, "1");
            produced[0]++;
            return !cluster.partition(TOPIC, 0).isr().contains(follower);
          });
      sent = (int) produced[0];
      long sincePauseMs = (System.nanoTime() - pausedAtNanos) / 1_000_000;
      DemoCluster.Replica behind = cluster.replicas(TOPIC, 0).get(follower);
      ctx.result("pause.left", follower, sincePauseMs, behind == null ? -1 : behind.lag());
      showSets(ctx, cluster);
      ctx.look("pause.look", follower);
      // Its last fetch may precede the pause by up to one fetch wait; allow a second for that.
      ctx.check(sincePauseMs + 1_000 >= lagMaxMs, "pause.claim", follower, sincePauseMs, lagMaxMs);

      ctx.step("acks");
      int isrSize = cluster.partition(TOPIC, 0).isr().size();
      long start = System.nanoTime();
      List<DemoCluster.Ack> acks = cluster.produceTo(TOPIC, 0, HwDemo.numbers(sent, 20), "all");
      long tookMs = (System.nanoTime() - start) / 1_000_000;
      long ok = acks.stream().filter(DemoCluster.Ack::ok).count();
      sent += 20;
      ctx.result("acks.sent", ok, acks.size(), tookMs, isrSize);
      showSets(ctx, cluster);
      ctx.look("acks.look");
      ctx.check(ok == acks.size() && isrSize >= 2, "acks.claim", ok, acks.size(), isrSize);
    } finally {
      cluster.pauseFetching(follower, 1); // ends the longer pause
    }

    ctx.step("back", follower);
    long backMs =
        Waits.until(
            "broker " + follower + " back in the ISR of " + KEY,
            // Well inside the 60 s pause we ended: a follower still paused would not make it.
            Duration.ofSeconds(30),
            () -> cluster.partition(TOPIC, 0).isr().contains(follower));
    DemoCluster.Offsets offsets = cluster.offsets(TOPIC, 0);
    DemoCluster.Replica caughtUp = cluster.replicas(TOPIC, 0).get(follower);
    ctx.result(
        "back.in",
        follower,
        backMs,
        caughtUp == null ? -1 : caughtUp.logEndOffset(),
        offsets.logEndOffset());
    showSets(ctx, cluster);
    ctx.look("back.look", follower);
    ctx.check(cluster.partition(TOPIC, 0).isr().contains(follower), "back.claim", follower, backMs);
    ctx.check(arHeld == arChecks && arChecks > 0, "sets.claim", arHeld, arChecks);
  }

  /** Prints AR, ISR and OSR as the dashboard's state has them, and checks AR = ISR + OSR. */
  private void showSets(DemoContext ctx, DemoCluster cluster) throws Exception {
    JsonNode row = null;
    for (JsonNode partition : cluster.dashboardState().path("partitions")) {
      if (KEY.equals(partition.path("key").asString())) {
        row = partition;
      }
    }
    if (row == null) {
      throw new DemoException(KEY + " is not in the dashboard's state");
    }
    List<Integer> ar = ints(row.path("replicas"));
    List<Integer> isr = ints(row.path("isr"));
    List<Integer> osr = ints(row.path("osr"));
    TreeSet<Integer> union = new TreeSet<>(isr);
    union.addAll(osr);
    boolean holds = union.equals(new TreeSet<>(ar)) && isr.stream().noneMatch(osr::contains);
    arChecks++;
    if (holds) {
      arHeld++;
    }
    ctx.result("sets", ar, isr, osr, holds ? "=" : "≠");
  }

  private static JsonNode brokerRow(JsonNode state, int id) {
    for (JsonNode b : state.path("brokers")) {
      if (b.path("broker_id").asInt() == id) {
        return b;
      }
    }
    throw new DemoException("broker " + id + " is not in the dashboard's state");
  }

  private static List<Integer> ints(JsonNode array) {
    List<Integer> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asInt()));
    return out;
  }
}
