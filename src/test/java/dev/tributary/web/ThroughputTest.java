package dev.tributary.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Records per second in (log end offsets moving) and out (records served), per topic; records and
 * bytes per second in (log end offsets and log sizes moving), per leading broker.
 */
class ThroughputTest {
  private static LocalSnapshot leader(int brokerId, long leo, long fetched) {
    return new LocalSnapshot(
        "local", brokerId, List.of(led("orders", brokerId, leo, 0)), 0, Map.of("orders", fetched));
  }

  /** A partition its broker leads, with its log end offset and log size. */
  private static LocalSnapshot.LocalPartition led(
      String topic, int partition, long leo, long sizeBytes) {
    return new LocalSnapshot.LocalPartition(
        topic,
        partition,
        true,
        0,
        new LocalSnapshot.Offsets(0, leo, leo, sizeBytes, 1, "", List.of()));
  }

  private static LocalSnapshot answer(int brokerId, LocalSnapshot.LocalPartition... partitions) {
    return new LocalSnapshot("local", brokerId, List.of(partitions));
  }

  @Test
  void ratesAreOverTheLastSecondSummedOverLeadersAndBrokers() {
    Throughput throughput = new Throughput();
    throughput.observe(0, Map.of(1, leader(1, 0, 0), 2, leader(2, 100, 0)));
    throughput.observe(500, Map.of(1, leader(1, 50, 10), 2, leader(2, 150, 0)));
    Map<String, Throughput.Rates> rates =
        throughput.observe(1_000, Map.of(1, leader(1, 100, 20), 2, leader(2, 200, 5))).byTopic();

    assertThat(rates.get("orders")).isEqualTo(new Throughput.Rates(200, 25));
    rates =
        throughput.observe(1_500, Map.of(1, leader(1, 100, 20), 2, leader(2, 200, 5))).byTopic();
    assertThat(rates.get("orders").recordsInPerSec())
        .as("window from t=500 to t=1500")
        .isEqualTo(100);
  }

  @Test
  void anIdleTopicReadsExactlyZeroAndAMissingOrTruncatedLeaderAddsNothing() {
    Throughput throughput = new Throughput();
    throughput.observe(0, Map.of(1, leader(1, 100, 0), 2, leader(2, 100, 0)));
    Map<String, Throughput.Rates> rates =
        throughput.observe(1_000, Map.of(1, leader(1, 90, 0))).byTopic();

    assertThat(rates.get("orders")).isEqualTo(Throughput.Rates.ZERO);
  }

  @Test
  void eachBrokerAppendsWhatItsLedPartitionsGrewByAndTheBrokersAddUpToTheTopics() {
    Throughput throughput = new Throughput();
    throughput.observe(
        0,
        Map.of(
            1, answer(1, led("orders", 0, 100, 10_000), led("clicks", 0, 0, 0)),
            2, answer(2, led("orders", 1, 50, 5_000)),
            3, answer(3)));
    Throughput.Observed observed =
        throughput.observe(
            2_000,
            Map.of(
                1, answer(1, led("orders", 0, 300, 30_000), led("clicks", 0, 20, 1_000)),
                2, answer(2, led("orders", 1, 60, 6_001)),
                3, answer(3)));

    assertThat(observed.byBroker())
        .as("over 2 s: broker 1 appended 220 records and 21000 bytes, broker 2 10 and 1001")
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                1, new Throughput.BrokerRates(110, 10_500),
                2, new Throughput.BrokerRates(5, 501)));
    assertThat(observed.byBroker()).as("leads nothing: nothing to say").doesNotContainKey(3);
    double topics =
        observed.byTopic().values().stream().mapToDouble(Throughput.Rates::recordsInPerSec).sum();
    double brokers =
        observed.byBroker().values().stream()
            .mapToDouble(Throughput.BrokerRates::recordsInPerSec)
            .sum();
    assertThat(brokers).isEqualTo(topics);
  }

  @Test
  void aPartitionWhoseLeaderMovedCountsForTheLeaderAtTheEndOfTheWindow() {
    Throughput throughput = new Throughput();
    throughput.observe(0, Map.of(1, answer(1, led("orders", 0, 100, 1_000)), 2, answer(2)));
    Throughput.Observed observed =
        throughput.observe(1_000, Map.of(1, answer(1), 2, answer(2, led("orders", 0, 150, 1_500))));

    assertThat(observed.byBroker())
        .containsExactlyInAnyOrderEntriesOf(Map.of(2, new Throughput.BrokerRates(50, 500)));
  }

  @Test
  void aTruncationCountsAsZeroRecordsAndBytesAndAShrinkingLogAsZeroBytes() {
    Throughput throughput = new Throughput();
    throughput.observe(
        0,
        Map.of(
            1, answer(1, led("orders", 0, 100, 10_000)),
            2, answer(2, led("orders", 1, 100, 10_000))));
    Throughput.Observed observed =
        throughput.observe(
            1_000,
            Map.of(
                // A new leader with a shorter log that has since rolled more bytes.
                1, answer(1, led("orders", 0, 90, 12_000)),
                // Retention deleted a segment larger than what was appended.
                2, answer(2, led("orders", 1, 110, 4_000))));

    assertThat(observed.byBroker())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(1, Throughput.BrokerRates.ZERO, 2, new Throughput.BrokerRates(10, 0)));
  }

  @Test
  void anIdleClusterReadsExactlyZeroPerBrokerAndABrokerMissingAtEitherEndAddsNothing() {
    Throughput throughput = new Throughput();
    assertThat(throughput.observe(0, Map.of(1, answer(1, led("orders", 0, 7, 700)))))
        .as("one sample: no window yet")
        .isEqualTo(Throughput.Observed.NONE);
    throughput.observe(
        100,
        Map.of(1, answer(1, led("orders", 0, 7, 700)), 2, answer(2, led("orders", 1, 5, 500))));
    Throughput.Observed observed =
        throughput.observe(
            1_000,
            Map.of(1, answer(1, led("orders", 0, 7, 700)), 2, answer(2, led("orders", 1, 9, 900))));

    assertThat(observed.byBroker())
        .as("broker 2 was not heard from at t=0, the window's start")
        .containsExactlyInAnyOrderEntriesOf(Map.of(1, Throughput.BrokerRates.ZERO));
    assertThat(throughput.latest()).isEqualTo(observed);
  }
}
