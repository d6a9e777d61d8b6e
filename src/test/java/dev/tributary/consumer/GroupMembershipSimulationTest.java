package dev.tributary.consumer;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Seeded simulations of one group: members join, leave, pause their clients and lose their link to
 * the coordinator at random, and the safety invariant (no partition owned by two members at the
 * same instant) is checked after every clock step. After the chaos every fault heals and the live
 * members must settle on all partitions. A failure names its seed; {@code -Dtributary.seed=N}
 * replays that one.
 */
class GroupMembershipSimulationTest {
  private static final int SEEDS = 100;
  private static final long CHAOS_MS = 120_000;

  @Test
  void noPartitionIsOwnedByTwoMembersUnderRandomJoinsLeavesPausesAndLostHeartbeats() {
    forEachSeed(seed -> simulate(seed, false));
  }

  @Test
  void noPartitionIsOwnedByTwoMembersWhenRequestsAreAlsoSlow() {
    forEachSeed(seed -> simulate(seed, true));
  }

  private static void forEachSeed(java.util.function.LongConsumer run) {
    Long only = Long.getLong("tributary.seed");
    List<Long> seeds = new ArrayList<>();
    if (only != null) {
      seeds.add(only);
    } else {
      for (long s = 1; s <= SEEDS; s++) {
        seeds.add(s);
      }
    }
    for (long seed : seeds) {
      try {
        run.accept(seed);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(
            "seed "
                + seed
                + " failed (replay with -Dtributary.seed="
                + seed
                + "): "
                + e.getMessage(),
            e);
      }
    }
  }

  private static void simulate(long seed, boolean slowRequests) {
    Random random = new Random(seed);
    MemberCluster cluster = new MemberCluster();
    List<SimulatedMember> live = new ArrayList<>();
    for (int i = 0; i < 1 + random.nextInt(3); i++) {
      live.add(cluster.add());
    }
    List<long[]> pauses = new ArrayList<>(); // [member index in live, resume at]
    for (long t = 0; t < CHAOS_MS; t += MemberCluster.STEP_MS) {
      long nowMs = cluster.h.clock.milliseconds();
      double dice = random.nextDouble();
      if (dice < 0.004 && live.size() < 5) {
        live.add(cluster.add());
      } else if (dice < 0.007 && live.size() > 1) {
        SimulatedMember leaving = live.remove(random.nextInt(live.size()));
        leaving.polling = false;
        leaving.membership.leaveNow("the test closed it");
      } else if (dice < 0.012 && !live.isEmpty()) {
        SimulatedMember m = live.get(random.nextInt(live.size()));
        m.polling = false;
        pauses.add(new long[] {live.indexOf(m), nowMs + 1_000 + random.nextInt(20_000)});
      } else if (dice < 0.018 && !live.isEmpty()) {
        SimulatedMember m = live.get(random.nextInt(live.size()));
        m.cutUntilMs = nowMs + 1_000 + random.nextInt(20_000);
      } else if (slowRequests && dice < 0.024 && !live.isEmpty()) {
        SimulatedMember m = live.get(random.nextInt(live.size()));
        m.requestDelayMs = random.nextInt(4) == 0 ? 0 : random.nextInt(5_000);
      }
      for (var it = pauses.iterator(); it.hasNext(); ) {
        long[] p = it.next();
        if (p[1] <= nowMs) {
          if (p[0] < live.size()) {
            live.get((int) p[0]).polling = true;
          }
          it.remove();
        }
      }
      cluster.step();
    }
    for (SimulatedMember m : live) {
      m.polling = true;
      m.cutUntilMs = Long.MIN_VALUE;
      m.requestDelayMs = 0;
    }
    cluster.runUntilSettled(live, 120_000);
  }
}
