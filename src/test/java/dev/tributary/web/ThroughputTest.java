package dev.tributary.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Records per second in (log end offsets moving) and out (records served), per topic. */
class ThroughputTest {
  private static LocalSnapshot leader(int brokerId, long leo, long fetched) {
    return new LocalSnapshot(
        "local",
        brokerId,
        List.of(
            new LocalSnapshot.LocalPartition(
                "orders",
                brokerId,
                true,
                0,
                new LocalSnapshot.Offsets(0, leo, leo, 0, 1, "", List.of()))),
        0,
        Map.of("orders", fetched));
  }

  @Test
  void ratesAreOverTheLastSecondSummedOverLeadersAndBrokers() {
    Throughput throughput = new Throughput();
    throughput.observe(0, Map.of(1, leader(1, 0, 0), 2, leader(2, 100, 0)));
    throughput.observe(500, Map.of(1, leader(1, 50, 10), 2, leader(2, 150, 0)));
    Map<String, Throughput.Rates> rates =
        throughput.observe(1_000, Map.of(1, leader(1, 100, 20), 2, leader(2, 200, 5)));

    assertThat(rates.get("orders")).isEqualTo(new Throughput.Rates(200, 25));
    rates = throughput.observe(1_500, Map.of(1, leader(1, 100, 20), 2, leader(2, 200, 5)));
    assertThat(rates.get("orders").recordsInPerSec())
        .as("window from t=500 to t=1500")
        .isEqualTo(100);
  }

  @Test
  void anIdleTopicReadsExactlyZeroAndAMissingOrTruncatedLeaderAddsNothing() {
    Throughput throughput = new Throughput();
    throughput.observe(0, Map.of(1, leader(1, 100, 0), 2, leader(2, 100, 0)));
    Map<String, Throughput.Rates> rates = throughput.observe(1_000, Map.of(1, leader(1, 90, 0)));

    assertThat(rates.get("orders")).isEqualTo(Throughput.Rates.ZERO);
  }
}
