package dev.tributary.demo;

import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * A record's path leader → followers → HW, traced by its leader ({@code POST
 * /dashboard/actions/topics/{t}/trace}), with acks=all, 1 and 0: what the producer's answer waits
 * for in each case.
 */
final class ReplicationDemo implements Demo {
  static final String TOPIC = "demo-replication";

  @Override
  public String name() {
    return "replication";
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
    ctx.highlight(List.of(TOPIC + "-0"));

    ctx.step("setup", TOPIC);
    cluster.recreateTopic(TOPIC, 1, 3, Map.of("min.insync.replicas", "2"));
    DemoCluster.PartitionInfo p = cluster.partition(TOPIC, 0);
    ctx.result("setup.partition", p.leader(), p.leaderEpoch(), p.replicas(), p.isr());
    ctx.look("setup.look");

    ctx.step("all");
    JsonNode all = trace(ctx, cluster, "all");
    double appended = at(all, "appended");
    double committed = at(all, "committed");
    double answered = at(all, "acknowledged");
    int followers = count(all, "replicated");
    ctx.look("all.look");
    ctx.check(
        appended >= 0
            && committed >= appended
            && answered >= committed
            && followers == p.isr().size() - 1,
        "all.claim",
        followers,
        fmt(committed),
        fmt(answered));

    ctx.step("one");
    JsonNode one = trace(ctx, cluster, "1");
    double oneAppended = at(one, "appended");
    double oneAnswered = at(one, "acknowledged");
    ctx.look("one.look");
    ctx.check(
        oneAppended >= 0
            && oneAnswered >= oneAppended
            && "appended".equals(one.path("waited_for").asString()),
        "one.claim",
        fmt(oneAppended),
        fmt(oneAnswered),
        fmt(at(one, "committed")));

    ctx.step("zero");
    JsonNode zero = trace(ctx, cluster, "0");
    long offset = zero.path("offset").asLong(-1);
    DemoCluster.Fetch read = cluster.records(TOPIC, 0, Math.max(0, offset), 2000);
    boolean readable = read.records().stream().anyMatch(r -> r.offset() == offset);
    ctx.result("zero.read", offset, readable ? ctx.text("yes") : ctx.text("no"));
    ctx.look("zero.look");
    ctx.check(
        "nothing".equals(zero.path("waited_for").asString()) && offset >= 0 && readable,
        "zero.claim",
        offset);
  }

  /** Traces one record and prints each step as its leader timed it. */
  private static JsonNode trace(DemoContext ctx, DemoCluster cluster, String acks)
      throws Exception {
    JsonNode t = cluster.trace(TOPIC, acks, 0);
    ctx.action(
        "traced",
        acks,
        t.path("offset").asLong(),
        t.path("leader_id").asInt(),
        t.path("isr").toString(),
        t.path("waited_for").asString());
    for (JsonNode s : t.path("steps")) {
      String when =
          s.path("at_ms").isNumber() ? "+" + fmt(s.path("at_ms").asDouble()) + " ms" : "—";
      ctx.raw(
          String.format(
              "    %10s  %-12s broker %d  %s",
              when,
              s.path("step").asString(),
              s.path("broker_id").asInt(),
              s.path("text").asString()));
    }
    return t;
  }

  /**
   * When the first step named {@code step} happened, in ms since the request reached the leader; -1
   * if never.
   */
  static double at(JsonNode trace, String step) {
    for (JsonNode s : trace.path("steps")) {
      if (step.equals(s.path("step").asString()) && s.path("at_ms").isNumber()) {
        return s.path("at_ms").asDouble();
      }
    }
    return -1;
  }

  private static int count(JsonNode trace, String step) {
    int n = 0;
    for (JsonNode s : trace.path("steps")) {
      if (step.equals(s.path("step").asString()) && s.path("at_ms").isNumber()) {
        n++;
      }
    }
    return n;
  }

  private static String fmt(double ms) {
    return ms < 0 ? "—" : String.format(java.util.Locale.ROOT, "%.1f", ms);
  }
}
