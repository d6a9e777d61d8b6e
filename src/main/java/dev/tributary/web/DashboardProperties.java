package dev.tributary.web;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code tributary.dashboard.*}.
 *
 * @param faultActions whether the page's fault buttons work on this broker (crash, shut down, pause
 *     fetching, restart). Off by default: they end processes. {@code ./tributary start} turns them
 *     on for the local demo.
 * @param networkFaults whether the brokers are separate hosts that the launcher made ({@code
 *     ./tributary start --hosts}), so that the page can cut a broker's links and heal them ({@link
 *     NetworkFaults}); only with {@code faultActions} and the launcher
 * @param launcher the launcher script that started this cluster ({@code ./tributary}); with {@code
 *     launcherDataDir}, lets a live broker restart a stopped one ({@code tributary --data DIR start
 *     ID}), add the next broker ({@code add-broker}) and decommission one ({@code decommission
 *     ID}), through {@link LauncherRuns}. Empty: the page can do none of these.
 * @param historyMaxBytes the most memory the rewind history's frames may take, deflated ({@link
 *     ClusterHistory}); 0 turns recording off (the page then cannot rewind, and the broker polls
 *     its peers only while a page is open)
 * @param historyMaxAgeMs how far back the rewind history reaches
 */
@ConfigurationProperties("tributary.dashboard")
public record DashboardProperties(
    @DefaultValue("false") boolean faultActions,
    @DefaultValue("false") boolean networkFaults,
    @DefaultValue("") String launcher,
    @DefaultValue("") String launcherDataDir,
    @DefaultValue("67108864") long historyMaxBytes,
    @DefaultValue("3600000") long historyMaxAgeMs) {

  public DashboardProperties {
    if (historyMaxBytes < 0 || historyMaxAgeMs <= 0) {
      throw new IllegalArgumentException(
          "tributary.dashboard.history-max-bytes must be at least 0 and"
              + " tributary.dashboard.history-max-age-ms positive");
    }
  }

  boolean recordsHistory() {
    return historyMaxBytes > 0;
  }
}
