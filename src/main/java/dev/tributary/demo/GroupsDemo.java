package dev.tributary.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Consumer groups over the REST consumer API: two groups each read the whole topic (broadcast);
 * inside one group each partition goes to exactly one member; a member that leaves sets off a
 * rebalance; a fourth member on three partitions idles.
 */
final class GroupsDemo implements Demo {
  static final String TOPIC = "demo-groups";
  static final String GROUP_A = "demo-groups-a";
  static final String GROUP_B = "demo-groups-b";
  static final int PARTITIONS = 3;
  static final int RECORDS = 30;
  static final Duration SETTLE = Duration.ofSeconds(60);

  @Override
  public String name() {
    return "groups";
  }

  @Override
  public int steps() {
    return 5;
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
    List<DemoConsumer> consumers = new ArrayList<>();
    try {
      ctx.step("setup", TOPIC, PARTITIONS, RECORDS);
      // Members an interrupted earlier run left behind would hold partitions until their session
      // timeout: they leave now.
      for (String member : List.of("a1", "a2", "a3", "a4", "a5")) {
        DemoConsumer.removeLeftover(cluster, GROUP_A, member);
      }
      DemoConsumer.removeLeftover(cluster, GROUP_B, "b1");
      cluster.recreateTopic(TOPIC, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
      for (int p = 0; p < PARTITIONS; p++) {
        cluster.produceTo(TOPIC, p, HwDemo.numbers(p * 100, RECORDS / PARTITIONS), "all");
      }
      ctx.result("setup.produced", RECORDS, PARTITIONS);
      ctx.look("setup.look");

      ctx.step("broadcast", GROUP_A, GROUP_B);
      DemoConsumer a1 = join(cluster, consumers, GROUP_A, "a1");
      DemoConsumer b1 = join(cluster, consumers, GROUP_B, "b1");
      a1.keepPolling();
      b1.keepPolling();
      Waits.until(
          "both groups to read all " + RECORDS + " records",
          SETTLE,
          () -> a1.seen().size() >= RECORDS && b1.seen().size() >= RECORDS);
      ctx.result("broadcast.read", GROUP_A, a1.seen().size(), GROUP_B, b1.seen().size());
      ctx.look("broadcast.look");
      ctx.check(
          a1.seen().size() == RECORDS && a1.seen().equals(b1.seen()),
          "broadcast.claim",
          a1.seen().size(),
          b1.seen().size(),
          RECORDS);

      ctx.step("split", GROUP_A);
      DemoConsumer a2 = join(cluster, consumers, GROUP_A, "a2");
      DemoConsumer a3 = join(cluster, consumers, GROUP_A, "a3");
      a2.keepPolling();
      a3.keepPolling();
      Map<String, Set<String>> three = settle(List.of(a1, a2, a3));
      show(ctx, three);
      ctx.look("split.look", GROUP_A);
      ctx.check(
          three.values().stream().allMatch(s -> s.size() == 1),
          "split.claim",
          three.size(),
          PARTITIONS);

      ctx.step("leave", a3.name());
      consumers.remove(a3);
      a3.close();
      Map<String, Set<String>> two = settle(List.of(a1, a2));
      show(ctx, two);
      ctx.look("leave.look", GROUP_A);
      ctx.check(
          two.values().stream().allMatch(s -> !s.isEmpty()), "leave.claim", a3.name(), two.size());

      ctx.step("idle");
      DemoConsumer a4 = join(cluster, consumers, GROUP_A, "a4");
      DemoConsumer a5 = join(cluster, consumers, GROUP_A, "a5");
      a4.keepPolling();
      a5.keepPolling();
      Map<String, Set<String>> four = settle(List.of(a1, a2, a4, a5));
      show(ctx, four);
      long idle = four.values().stream().filter(Set::isEmpty).count();
      ctx.look("idle.look");
      ctx.check(idle == 1, "idle.claim", idle, four.size(), PARTITIONS);
    } finally {
      for (DemoConsumer c : consumers) {
        try {
          c.close();
        } catch (Exception e) {
          // the instance expires by itself (consumer.instance.timeout.ms)
        }
      }
    }
  }

  private static DemoConsumer join(
      DemoCluster cluster, List<DemoConsumer> consumers, String group, String name)
      throws Exception {
    DemoConsumer c = DemoConsumer.join(cluster, group, name, TOPIC);
    consumers.add(c);
    return c;
  }

  /**
   * Waits until the members' assignments cover every partition exactly once: the group has
   * rebalanced to these members. Returns each member's partitions.
   */
  private static Map<String, Set<String>> settle(List<DemoConsumer> members) throws Exception {
    Map<String, Set<String>> result = new LinkedHashMap<>();
    Waits.until(
        "group "
            + members.get(0).group()
            + " to give its "
            + PARTITIONS
            + " partitions to "
            + members.size()
            + " members",
        SETTLE,
        () -> {
          result.clear();
          Set<String> all = new TreeSet<>();
          int total = 0;
          for (DemoConsumer c : members) {
            Set<String> mine = c.assignment();
            result.put(c.name(), mine);
            all.addAll(mine);
            total += mine.size();
          }
          int most = result.values().stream().mapToInt(Set::size).max().orElse(0);
          int least = result.values().stream().mapToInt(Set::size).min().orElse(0);
          // Every partition to exactly one member, spread evenly: the old assignment (the first
          // member holding everything) does not count as settled.
          return all.size() == PARTITIONS && total == PARTITIONS && most - least <= 1;
        });
    return result;
  }

  private static void show(DemoContext ctx, Map<String, Set<String>> assignment) {
    assignment.forEach(
        (member, partitions) ->
            ctx.result(
                partitions.isEmpty() ? "member.idle" : "member.partitions",
                member,
                String.join(", ", partitions)));
  }
}
