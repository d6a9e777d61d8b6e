package dev.tributary.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A consumer never reads past the high watermark: with both followers' fetching paused, records
 * produced with acks=1 raise the leader's LEO but not the HW, and a read stops at the HW; once the
 * followers fetch again the HW catches up and the records become readable.
 */
final class HwDemo implements Demo {
  static final String TOPIC = "demo-hw";
  static final int COMMITTED = 10;
  static final int PAUSE_SECONDS = 30;

  @Override
  public String name() {
    return "hw";
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
    cluster.produceTo(TOPIC, 0, numbers(0, COMMITTED), "all");
    DemoCluster.Offsets before = cluster.offsets(TOPIC, 0);
    ctx.result(
        "setup.offsets", COMMITTED, p.leader(), before.logEndOffset(), before.highWatermark());
    ctx.look("setup.look", TOPIC);

    List<Integer> followers = p.replicas().stream().filter(r -> r != p.leader()).toList();
    ctx.step("pause", followers, PAUSE_SECONDS);
    DemoCluster.Offsets stuck;
    int sentAcks1 = 0;
    try {
      for (int f : followers) {
        cluster.pauseFetching(f, PAUSE_SECONDS);
      }
      ctx.action("pause.paused", followers);
      // A fetch already in flight when the pause began may still carry the first records: send more
      // until the leader's LEO is seen ahead of its HW.
      stuck = cluster.offsets(TOPIC, 0);
      for (int round = 0; round < 10 && stuck.logEndOffset() <= stuck.highWatermark(); round++) {
        List<DemoCluster.Ack> acks =
            cluster.produceTo(TOPIC, 0, numbers(COMMITTED + sentAcks1, 5), "1");
        sentAcks1 += (int) acks.stream().filter(DemoCluster.Ack::ok).count();
        stuck = cluster.offsets(TOPIC, 0);
      }
      ctx.action("pause.produced", sentAcks1);
      ctx.result(
          "pause.offsets",
          stuck.logEndOffset(),
          stuck.highWatermark(),
          stuck.logEndOffset() - stuck.highWatermark());
      ctx.look("pause.look");
      ctx.check(
          stuck.logEndOffset() > stuck.highWatermark(),
          "pause.claim",
          stuck.logEndOffset(),
          stuck.highWatermark());

      ctx.step("read");
      DemoCluster.Fetch fromStart = cluster.records(TOPIC, 0, 0, 0);
      long maxOffset =
          fromStart.records().stream().mapToLong(DemoCluster.Record::offset).max().orElse(-1);
      DemoCluster.Fetch atHw = cluster.records(TOPIC, 0, fromStart.highWatermark(), 200);
      ctx.action("read.from", 0, fromStart.records().size(), maxOffset, fromStart.highWatermark());
      ctx.action("read.at", fromStart.highWatermark(), atHw.records().size());
      ctx.look("read.look");
      ctx.check(
          maxOffset < fromStart.highWatermark() && atHw.records().isEmpty(),
          "read.claim",
          fromStart.records().size() + atHw.records().size(),
          fromStart.highWatermark(),
          stuck.logEndOffset() - fromStart.highWatermark());
    } finally {
      for (int f : followers) {
        cluster.pauseFetching(f, 1); // ends the longer pause
      }
    }

    ctx.step("resume", followers);
    long hwBefore = stuck.highWatermark();
    long leo = stuck.logEndOffset();
    long tookMs =
        Waits.until(
            "the HW of " + TOPIC + "-0 to reach " + leo,
            Duration.ofSeconds(30),
            () -> cluster.offsets(TOPIC, 0).highWatermark() >= leo);
    List<DemoCluster.Record> now = cluster.records(TOPIC, 0, hwBefore, 1000).records();
    DemoCluster.Offsets after = cluster.offsets(TOPIC, 0);
    ctx.result(
        "resume.offsets",
        tookMs,
        after.logEndOffset(),
        after.highWatermark(),
        now.size(),
        hwBefore);
    ctx.look("resume.look");
    ctx.check(
        after.highWatermark() == after.logEndOffset() && now.size() == leo - hwBefore,
        "resume.claim",
        now.size(),
        leo - hwBefore,
        after.highWatermark());
  }

  static List<Integer> numbers(int from, int count) {
    List<Integer> values = new ArrayList<>();
    for (int i = from; i < from + count; i++) {
      values.add(i);
    }
    return values;
  }
}
