package dev.tributary.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.ManualClock;
import dev.tributary.common.TopicPartition;
import dev.tributary.replication.Acks;
import dev.tributary.trace.TraceStep.Kind;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Events in, steps out: a trace of offset 17 of {@code orders-0}, led by broker 1 with followers 2
 * and 3, on a clock that moves only when the test says so (times are ms since the request arrived).
 */
class RecordTraceTest {
  private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
  private final ManualClock clock = new ManualClock();
  private final AtomicInteger completions = new AtomicInteger();

  private RecordTrace trace(Acks acks, List<Integer> isr) {
    return new RecordTrace(
        ORDERS_0,
        1,
        7,
        List.of(1, 2, 3),
        isr,
        acks,
        clock,
        clock.nanoseconds(),
        Thread.currentThread(),
        completions::incrementAndGet);
  }

  private static List<Kind> kinds(TraceReport report) {
    return report.steps().stream().map(TraceStep::kind).toList();
  }

  private static List<Double> times(TraceReport report) {
    return report.steps().stream().map(TraceStep::atMs).toList();
  }

  @Test
  void acksAllRecordIsAppendedFetchedByBothFollowersCommittedThenAcknowledged() {
    RecordTrace trace = trace(Acks.ALL, List.of(1, 2, 3));
    trace.onFollowerFetch(2, 17); // before the append: an older record's fetch
    clock.advance(1);
    trace.onAppend(17, 18, 17);
    clock.advance(2);
    trace.onFollowerFetch(3, 18);
    trace.onHighWatermark(17); // not past the record yet: impossible, but must be ignored
    clock.advance(1);
    trace.onFollowerFetch(2, 18);
    trace.onHighWatermark(18);
    clock.advance(1);
    trace.onAcknowledged(null);

    TraceReport report = trace.report(5_000);
    assertThat(report.offset()).isEqualTo(17);
    assertThat(report.leaderEpoch()).isEqualTo(7);
    assertThat(report.waitedFor()).isEqualTo("committed");
    assertThat(report.complete()).isTrue();
    assertThat(completions).hasValue(1);
    assertThat(kinds(report))
        .containsExactly(
            Kind.APPENDED, Kind.REPLICATED, Kind.REPLICATED, Kind.COMMITTED, Kind.ACKNOWLEDGED);
    assertThat(times(report)).containsExactly(1.0, 3.0, 4.0, 4.0, 5.0);
    assertThat(report.steps().get(0).text())
        .isEqualTo("appended on leader 1 at offset 17 (its LEO now 18)");
    assertThat(report.steps().get(1).brokerId()).isEqualTo(3);
    assertThat(report.steps().get(1).text())
        .isEqualTo("follower 3 fetched it (its next fetch asked from offset 18, so its LEO is 18)");
    assertThat(report.steps().get(3).highWatermark()).isEqualTo(18);
  }

  @Test
  void onlyTheAppendOnTheProducingThreadIsTheTracedRecords() throws Exception {
    RecordTrace trace = trace(Acks.LEADER, List.of(1));
    Thread other = new Thread(() -> trace.onAppend(16, 17, 16));
    other.start();
    other.join();
    assertThat(trace.offset()).isEqualTo(-1);
    assertThatThrownBy(() -> trace.report(10)).isInstanceOf(IllegalStateException.class);

    trace.onAppend(17, 18, 17);
    trace.onAppend(18, 19, 17); // another append on this thread later: not the traced record
    assertThat(trace.offset()).isEqualTo(17);
  }

  @Test
  void aFollowerOutsideTheIsrIsNotWaitedForAndGetsNoTime() {
    RecordTrace trace = trace(Acks.ALL, List.of(1, 2));
    trace.onAppend(17, 18, 17);
    clock.advance(2);
    trace.onFollowerFetch(2, 18);
    trace.onHighWatermark(18);
    trace.onAcknowledged(null);

    assertThat(completions).as("follower 3 is not waited for").hasValue(1);
    TraceReport report = trace.report(5_000);
    assertThat(report.complete()).isTrue();
    TraceStep three = report.steps().get(report.steps().size() - 1);
    assertThat(three.kind()).isEqualTo(Kind.REPLICATED);
    assertThat(three.brokerId()).isEqualTo(3);
    assertThat(three.atMs()).isNull();
    assertThat(three.text())
        .startsWith("follower 3 is not in the ISR and had not fetched offset 17 by +2.0 ms");
  }

  @Test
  void aFollowerOutsideTheIsrThatFetchesAnywayIsReportedWithItsTime() {
    RecordTrace trace = trace(Acks.ALL, List.of(1, 2));
    trace.onAppend(17, 18, 17);
    clock.advance(3);
    trace.onFollowerFetch(3, 18);

    TraceStep three = trace.report(5_000).steps().get(1);
    assertThat(three.brokerId()).isEqualTo(3);
    assertThat(three.atMs()).isEqualTo(3.0);
    assertThat(three.text()).endsWith("it is not in the ISR, so the HW did not wait for it");
  }

  @Test
  void anIsrFollowerThatNeverFetchesLeavesTheTraceIncompleteWithoutInventedTimes() {
    RecordTrace trace = trace(Acks.ALL, List.of(1, 2, 3));
    trace.onAppend(17, 18, 17);
    clock.advance(1);
    trace.onFollowerFetch(2, 18);
    clock.advance(5_000); // the trace's wait runs out

    TraceReport report = trace.report(5_000);
    assertThat(report.complete()).isFalse();
    assertThat(completions).hasValue(0);
    assertThat(kinds(report))
        .containsExactly(
            Kind.APPENDED, Kind.REPLICATED, Kind.REPLICATED, Kind.COMMITTED, Kind.ACKNOWLEDGED);
    assertThat(times(report)).containsExactly(0.0, 1.0, null, null, null);
    assertThat(report.steps().get(2).text())
        .isEqualTo(
            "follower 3 (in the ISR) had not fetched offset 17 by +5001.0 ms, when the trace"
                + " stopped waiting; the HW waits for it until it leaves the ISR"
                + " (replica.lag.time.max.ms)");
    assertThat(report.steps().get(3).text()).endsWith("(ISR followers without it: [3])");
  }

  @Test
  void acksOneIsAnsweredRightAfterTheAppendBeforeTheFollowersHaveIt() {
    RecordTrace trace = trace(Acks.LEADER, List.of(1, 2, 3));
    trace.onAppend(17, 18, 17);
    trace.onAcknowledged(null);
    clock.advance(2);
    trace.onFollowerFetch(2, 18);
    trace.onFollowerFetch(3, 19); // a later fetch: it has this record and the next
    trace.onHighWatermark(19);

    TraceReport report = trace.report(5_000);
    assertThat(report.waitedFor()).isEqualTo("appended");
    assertThat(kinds(report))
        .containsExactly(
            Kind.APPENDED, Kind.ACKNOWLEDGED, Kind.REPLICATED, Kind.REPLICATED, Kind.COMMITTED);
    assertThat(report.steps().get(1).text()).contains("acks=1");
    assertThat(report.steps().get(3).logEndOffset()).isEqualTo(19);
    assertThat(report.complete()).isTrue();
  }

  @Test
  void acksZeroIsNeverAnsweredTheProducerCountsTheRecordSentAtOnce() {
    RecordTrace trace = trace(Acks.NONE, List.of(1));
    clock.advance(1);
    trace.onAppend(17, 18, 17);
    trace.onHighWatermark(18);
    trace.onAcknowledged(null);

    TraceReport report = trace.report(5_000);
    assertThat(report.waitedFor()).isEqualTo("nothing");
    assertThat(kinds(report))
        .as("followers 2 and 3 are outside this ISR and did not fetch: last")
        .containsExactly(
            Kind.ACKNOWLEDGED, Kind.APPENDED, Kind.COMMITTED, Kind.REPLICATED, Kind.REPLICATED);
    assertThat(report.steps().get(0).atMs()).isZero();
    assertThat(report.steps().get(0).text()).startsWith("acks=0: the leader sends no answer");
  }

  @Test
  void aProduceAnsweredWithAnErrorAfterTheAppendSaysSo() {
    RecordTrace trace = trace(Acks.ALL, List.of(1));
    trace.onAppend(17, 18, 17);
    trace.onAcknowledged("REQUEST_TIMED_OUT: not replicated in time");

    TraceStep ack =
        trace.report(5_000).steps().stream()
            .filter(s -> s.kind() == Kind.ACKNOWLEDGED)
            .findFirst()
            .orElseThrow();
    assertThat(ack.text())
        .isEqualTo(
            "the leader answered the producer with an error: REQUEST_TIMED_OUT: not replicated in"
                + " time");
  }
}
