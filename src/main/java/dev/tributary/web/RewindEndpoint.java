package dev.tributary.web;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The dashboard's past, over HTTP: {@code GET /dashboard/state?at=<epoch ms>} answers in the shape
 * of the live {@code /dashboard/state} as the cluster was at that moment (from this broker's {@link
 * ClusterHistory}), and {@code GET /dashboard/history} says what span is kept.
 */
final class RewindEndpoint {
  /** The error code of a moment this broker keeps no history of. */
  static final int NO_HISTORY = 40411;

  private final Supplier<Optional<ClusterHistory>> history;
  private final int brokerId;
  private final JsonMapper json;

  RewindEndpoint(Supplier<Optional<ClusterHistory>> history, int brokerId, JsonMapper json) {
    this.history = history;
    this.brokerId = brokerId;
    this.json = json;
  }

  /**
   * What the rewind scrubber can reach on this broker.
   *
   * @param recording false when {@code tributary.dashboard.history-max-bytes} is 0
   * @param earliestMs the oldest moment kept, -1 when nothing is yet
   * @param latestMs the last moment the view changed, -1 when nothing is kept
   * @param intervalMs how often the view is recorded
   */
  record Extent(
      @JsonProperty("broker_id") int brokerId,
      @JsonProperty("recording") boolean recording,
      @JsonProperty("earliest_ms") long earliestMs,
      @JsonProperty("latest_ms") long latestMs,
      @JsonProperty("frames") int frames,
      @JsonProperty("json_bytes") long jsonBytes,
      @JsonProperty("stored_bytes") long storedBytes,
      @JsonProperty("events") int events,
      @JsonProperty("max_bytes") long maxBytes,
      @JsonProperty("max_age_ms") long maxAgeMs,
      @JsonProperty("interval_ms") long intervalMs) {}

  ResponseEntity<?> extent() {
    Optional<ClusterHistory> kept = history.get();
    if (kept.isEmpty()) {
      return ResponseEntity.ok(new Extent(brokerId, false, -1, -1, 0, 0, 0, 0, 0, 0, 0));
    }
    ClusterHistory.Extent e = kept.get().extent();
    return ResponseEntity.ok(
        new Extent(
            brokerId,
            true,
            e.earliestMs(),
            e.latestMs(),
            e.frames(),
            e.jsonBytes(),
            e.storedBytes(),
            e.events(),
            e.maxBytes(),
            e.maxAgeMs(),
            LiveClusterView.RECORD_MS));
  }

  /**
   * The charted numbers over the history kept, from {@code from} (epoch ms; all kept when null), by
   * column: {@code times}, and per topic {@code in} / {@code out} records per second, per group
   * {@code lag}, one value per time ({@code null}: the topic or group did not exist then, or the
   * lag was unknown).
   */
  ResponseEntity<?> series(String from) {
    long fromMs = 0;
    if (from != null) {
      try {
        fromMs = Long.parseLong(from.strip());
      } catch (NumberFormatException e) {
        return error(
            HttpStatus.BAD_REQUEST,
            40003,
            "from must be a moment in milliseconds since the epoch, not '" + from + "'");
      }
    }
    Optional<ClusterHistory> kept = history.get();
    if (kept.isEmpty()) {
      return noHistory();
    }
    HistorySeries.Columns columns = kept.get().series(fromMs);
    Map<String, Object> body = new java.util.LinkedHashMap<>();
    body.put("broker_id", brokerId);
    body.put("sample_ms", ClusterHistory.SERIES_SAMPLE_MS);
    body.put("times", columns.times());
    body.put("records_in_per_sec", columns.in());
    body.put("records_out_per_sec", columns.out());
    body.put("group_lag", columns.lag());
    return ResponseEntity.ok(body);
  }

  private ResponseEntity<?> noHistory() {
    return error(
        HttpStatus.NOT_FOUND,
        NO_HISTORY,
        "Broker "
            + brokerId
            + " keeps no history: tributary.dashboard.history-max-bytes is 0 on it");
  }

  ResponseEntity<?> stateAt(String scope, String at) {
    if (!ClusterSnapshot.SCOPE.equals(scope)) {
      return error(
          HttpStatus.BAD_REQUEST,
          40003,
          "at works with scope=cluster only: the history keeps the whole cluster's view");
    }
    long atMs;
    try {
      atMs = Long.parseLong(at.strip());
    } catch (NumberFormatException e) {
      atMs = -1;
    }
    if (atMs < 0) {
      return error(
          HttpStatus.BAD_REQUEST,
          40003,
          "at must be a moment in milliseconds since the epoch, like "
              + System.currentTimeMillis()
              + ", not '"
              + at
              + "'");
    }
    Optional<ClusterHistory> kept = history.get();
    if (kept.isEmpty()) {
      return noHistory();
    }
    Optional<ClusterHistory.Past> past = kept.get().at(atMs);
    if (past.isEmpty()) {
      long earliest = kept.get().extent().earliestMs();
      return error(
          HttpStatus.NOT_FOUND,
          NO_HISTORY,
          earliest < 0
              ? "Broker " + brokerId + " has recorded no history yet"
              : "Broker "
                  + brokerId
                  + " keeps history from "
                  + Instant.ofEpochMilli(earliest)
                  + " ("
                  + earliest
                  + "); "
                  + Instant.ofEpochMilli(atMs)
                  + " is before it");
    }
    return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(body(past.get(), atMs));
  }

  /**
   * The recorded view with its events put back, and where it comes from: {@code at_ms} the moment
   * asked for, {@code recorded_at_ms} when this view was recorded (it held from then until at least
   * {@code at_ms}).
   */
  private byte[] body(ClusterHistory.Past past, long atMs) {
    ObjectNode state = (ObjectNode) json.readTree(past.stateJson());
    state.set("events", json.valueToTree(past.events()));
    state.set("group_events", json.valueToTree(past.groupEvents()));
    state.put("at_ms", atMs);
    state.put("recorded_at_ms", past.recordedAtMs());
    return json.writeValueAsBytes(state);
  }

  private static ResponseEntity<?> error(HttpStatus status, int code, String message) {
    return ResponseEntity.status(status).body(Map.of("error_code", code, "message", message));
  }
}
