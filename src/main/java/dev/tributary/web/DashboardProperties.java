package dev.tributary.web;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code tributary.dashboard.*}.
 *
 * @param faultActions whether the page's fault buttons work on this broker (crash, shut down, pause
 *     fetching, restart). Off by default: they end processes. {@code ./tributary start} turns them
 *     on for the local demo.
 * @param launcher the launcher script that started this cluster ({@code ./tributary}); with {@code
 *     launcherDataDir}, lets a live broker restart a stopped one ({@code tributary --data DIR start
 *     ID}). Empty: the page cannot restart brokers.
 */
@ConfigurationProperties("tributary.dashboard")
public record DashboardProperties(
    @DefaultValue("false") boolean faultActions,
    @DefaultValue("") String launcher,
    @DefaultValue("") String launcherDataDir) {}
