package dev.tributary.demo;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A partition's leader is killed under an acks=all load: the controller elects an in-sync follower
 * (the election time measured from the kill until the metadata names it), the producer sees errors
 * and retries them against the new leader, no acknowledged record is lost (read back by value), and
 * the old leader, restarted, rejoins the ISR as a follower under a higher leader epoch.
 */
final class FailoverDemo implements Demo {
  static final String TOPIC = "demo-failover";
  static final int BATCH = 20;
  static final int WARM_UP = 200;
  static final int AFTER_CRASH = 200;
  static final Duration ELECTION = Duration.ofSeconds(30);
  static final Duration REJOIN = Duration.ofSeconds(60);

  @Override
  public String name() {
    return "failover";
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
    DemoCluster.PartitionInfo before = cluster.partition(TOPIC, 0);
    int leader = before.leader();
    ctx.result("setup.partition", TOPIC, leader, before.leaderEpoch(), before.isr());
    ctx.look("setup.look", TOPIC);

    try (LoadProducer load = new LoadProducer(cluster, TOPIC, 0, "failover", BATCH)) {
      ctx.step("load", BATCH);
      load.start();
      long warmMs =
          Waits.until(
              WARM_UP + " records acknowledged",
              Duration.ofSeconds(30),
              () -> load.acknowledgedCount() >= WARM_UP);
      ctx.result("load.acked", load.acknowledgedCount(), warmMs);
      ctx.look("load.look", TOPIC);

      ctx.step("kill", leader);
      before = cluster.partition(TOPIC, 0);
      long eventsBefore = ClusterWatch.lastEventOffset(cluster);
      int ackedAtKill = load.acknowledgedCount();
      ctx.action("kill.kill", leader, before.leaderEpoch(), before.isr(), ackedAtKill);
      ctx.brokers().kill(leader);
      long killed = System.nanoTime();
      DemoCluster.PartitionInfo after =
          ClusterWatch.awaitNewLeader(cluster, TOPIC, 0, leader, ELECTION);
      long electionMs = (System.nanoTime() - killed) / 1_000_000;
      Waits.until(
          "the producer acknowledged again",
          Duration.ofSeconds(30),
          () -> load.firstAckAfter(killed) > 0);
      long resumedMs = (load.firstAckAfter(killed) - killed) / 1_000_000;
      ctx.result(
          "kill.elected",
          after.leader(),
          electionMs,
          before.leaderEpoch(),
          after.leaderEpoch(),
          after.isr());
      ctx.result("kill.resumed", resumedMs, load.failedAttempts(), load.retriedBatches());
      for (String error : load.errors()) {
        ctx.raw("    " + error);
      }
      int ackedAfterKill = load.acknowledgedCount();
      Waits.until(
          AFTER_CRASH + " more records acknowledged",
          Duration.ofSeconds(30),
          () -> load.acknowledgedCount() >= ackedAfterKill + AFTER_CRASH);
      ctx.look("kill.look", TOPIC, leader);
      ctx.check(
          before.isr().contains(after.leader()) && after.leaderEpoch() > before.leaderEpoch(),
          "kill.claim",
          after.leader(),
          before.isr(),
          electionMs,
          before.leaderEpoch(),
          after.leaderEpoch());
      ctx.step("rejoin", leader);
      ctx.action("rejoin.restart", leader);
      ctx.brokers().start(leader);
      ClusterWatch.Event joined =
          ClusterWatch.awaitEvent(cluster, eventsBefore, "isr_expand", leader, TOPIC, REJOIN);
      load.close();
      cluster.awaitFullIsr(TOPIC, REJOIN);
      DemoCluster.PartitionInfo now = cluster.partition(TOPIC, 0);
      ctx.result("rejoin.joined", joined.describe());
      ctx.result("rejoin.now", now.leader(), now.leaderEpoch(), now.isr(), before.leaderEpoch());

      List<String> readBack = AcksDemo.values(cluster.readAll(TOPIC, 0));
      RecordLoss loss = RecordLoss.of(load.acknowledged(), readBack);
      ctx.result(
          "rejoin.lost",
          loss.lost().size(),
          loss.acknowledged(),
          readBack.size(),
          loss.duplicates(),
          RecordLoss.ranges(loss.lost().keySet()));
      ctx.look("rejoin.look", TOPIC, leader);
      ctx.check(
          joined.brokerId() == leader && now.isr().contains(leader),
          "rejoin.claim",
          leader,
          after.leader(),
          after.leaderEpoch());
      ctx.check(
          loss.lost().isEmpty() && loss.acknowledged() > 0,
          "rejoin.claim.lost",
          loss.lost().size(),
          loss.acknowledged());
    } finally {
      if (!ctx.brokers().isRunning(leader)) {
        ctx.brokers().start(leader);
      }
    }
  }
}
