package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.browser.HeadlessChromium;
import java.time.Duration;
import java.util.Map;

/**
 * The rewind bar, driven as a user drives it, on a page whose serving broker has just failed over
 * (DashboardLiveIT): dragging the scrubber back shows the cluster as it was (the old leader and
 * ISR), forward again the new ones, "replay the last failover" plays it, "live" returns.
 */
final class RewindChecks {
  private final HeadlessChromium browser;
  private final Duration onScreen;

  RewindChecks(HeadlessChromium browser, Duration onScreen) {
    this.browser = browser;
    this.onScreen = onScreen;
  }

  /**
   * Drags the scrubber to {@code atMs} (as an input event, like a mouse drag) and waits until the
   * page has drawn that moment.
   *
   * @return how long the page took from the drag to the drawn past state, in ms
   */
  double dragTo(long atMs) {
    await("the page's clock passes " + atMs)
        .atMost(onScreen)
        .until(
            () ->
                ((Number)
                            browser.script(
                                "return window.tributaryDashboard.state().header.server_time_ms;"))
                        .longValue()
                    > atMs + 300);
    browser.script(
        "const s = document.getElementById('rewind-slider');"
            + " s.value = String(arguments[0]); s.dispatchEvent(new Event('input'));",
        atMs);
    await("the page drawn as it was at " + atMs)
        .atMost(onScreen)
        .until(
            () ->
                "rewound".equals(browser.attribute("#rewind", "data-mode"))
                    && String.valueOf(atMs).equals(browser.attribute("#rewind", "data-drawn-at")));
    Map<?, ?> scrub =
        (Map<?, ?>) browser.script("return window.tributaryDashboard.rewind.lastScrub();");
    return ((Number) scrub.get("drawnAt")).doubleValue()
        - ((Number) scrub.get("requestedAt")).doubleValue();
  }

  /**
   * Checks that partition row {@code row} showed {@code oldLeader} with it in the ISR before {@code
   * killedMs}, and {@code newLeader} at {@code afterMs}; then that "live" comes back.
   *
   * @return the scrub latencies measured (drag to drawn), in ms
   */
  double[] oldAndNewLeaderOnRewind(
      String row, int oldLeader, int newLeader, long killedMs, long afterMs) {
    await("the scrubber reaches before the kill")
        .atMost(onScreen)
        .until(() -> Long.parseLong(browser.attribute("#rewind-slider", "min")) < killedMs - 1_000);
    double before = dragTo(killedMs - 500);
    assertThat(browser.attribute(row, "data-leader")).isEqualTo(String.valueOf(oldLeader));
    assertThat(browser.attribute(row, "data-isr").split(",")).contains(String.valueOf(oldLeader));
    assertThat(browser.attribute("#dashboard", "data-rewound")).isEqualTo("true");
    browser.screenshot("dashboard-rewound-before-kill");

    double after = dragTo(afterMs);
    assertThat(browser.attribute(row, "data-leader")).isEqualTo(String.valueOf(newLeader));
    assertThat(browser.attribute(row, "data-isr").split(","))
        .doesNotContain(String.valueOf(oldLeader));

    browser.script("document.getElementById('rewind-live').click();");
    await("live again")
        .atMost(onScreen)
        .until(
            () ->
                "live".equals(browser.attribute("#rewind", "data-mode"))
                    && "false".equals(browser.attribute("#dashboard", "data-rewound"))
                    && String.valueOf(newLeader).equals(browser.attribute(row, "data-leader")));
    return new double[] {before, after};
  }

  /**
   * "Replay the last failover" jumps to before {@code killedMs}'s fencing and plays: the row shows
   * {@code oldLeader} first; at 10× it then reaches the present and the page is live again.
   */
  void replayShowsTheOldLeaderThenReturnsLive(String row, int oldLeader, int newLeader) {
    browser.script("document.getElementById('rewind-failover').click();");
    await("the replay starts with the old leader")
        .atMost(onScreen)
        .until(
            () ->
                "true".equals(browser.attribute("#rewind", "data-playing"))
                    && String.valueOf(oldLeader).equals(browser.attribute(row, "data-leader")));
    browser.script(
        "const s = document.getElementById('rewind-speed');"
            + " s.value = '10'; s.dispatchEvent(new Event('change'));");
    await("the replay reaches the present and the page is live")
        .atMost(onScreen)
        .until(
            () ->
                "live".equals(browser.attribute("#rewind", "data-mode"))
                    && String.valueOf(newLeader).equals(browser.attribute(row, "data-leader")));
  }
}
