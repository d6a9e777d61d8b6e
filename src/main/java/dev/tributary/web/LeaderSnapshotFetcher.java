package dev.tributary.web;

import dev.tributary.metadata.BrokerImage;
import dev.tributary.server.BrokerConfig;
import dev.tributary.transport.http.InternalApi;
import dev.tributary.transport.http.PeerUrls;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * Asks other brokers for their {@link LocalSnapshot} ({@code GET
 * /dashboard/state?scope=local&leading_only=true}), all in parallel, and waits at most {@code
 * timeout} for the lot. A broker that refuses, errs, answers late or answers for another broker id
 * is simply missing from the result: the dashboard shows its partitions without offsets.
 * Presentation only; nothing in the core reads this.
 */
@Component
class LeaderSnapshotFetcher {
  /** Short, so a crashed or paused leader costs the page well under one poll interval (1 s). */
  static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(500);

  private final HttpClient http;
  private final PeerUrls urls;
  private final JsonMapper json;
  private final Duration timeout;
  // With client authentication on, the other broker lets this one in by the cluster secret.
  private final String clusterSecret;

  @Autowired
  LeaderSnapshotFetcher(
      HttpClient tributaryHttpClient, PeerUrls urls, JsonMapper json, BrokerConfig config) {
    this(tributaryHttpClient, urls, json, DEFAULT_TIMEOUT, config.clusterSecret());
  }

  LeaderSnapshotFetcher(HttpClient http, PeerUrls urls, JsonMapper json, Duration timeout) {
    this(http, urls, json, timeout, null);
  }

  LeaderSnapshotFetcher(
      HttpClient http, PeerUrls urls, JsonMapper json, Duration timeout, String clusterSecret) {
    this.http = http;
    this.urls = urls;
    this.json = json;
    this.timeout = timeout;
    this.clusterSecret = clusterSecret;
  }

  /**
   * The snapshots that arrived within the timeout, by broker id; blocks at most about {@code
   * timeout}.
   */
  Map<Integer, LocalSnapshot> fetch(Collection<BrokerImage> brokers) {
    Map<Integer, CompletableFuture<Optional<LocalSnapshot>>> pending = new TreeMap<>();
    for (BrokerImage broker : brokers) {
      pending.put(broker.brokerId(), fetchOne(broker));
    }
    Map<Integer, LocalSnapshot> answers = new TreeMap<>();
    // Every future completes within the timeout (orTimeout below), so these joins wait for the
    // slowest only.
    pending.forEach(
        (brokerId, future) -> future.join().ifPresent(answer -> answers.put(brokerId, answer)));
    return answers;
  }

  /**
   * One broker's snapshot of the partitions it leads; completes (empty on any failure) within about
   * the timeout, never exceptionally.
   */
  CompletableFuture<Optional<LocalSnapshot>> fetchOne(BrokerImage broker) {
    return fetchOne(broker, true, null).thenApply(answer -> answer.map(Answer::snapshot));
  }

  /**
   * An answer: the snapshot and its entity tag; {@code snapshot} is null when the broker answered
   * 304 Not Modified to the tag it was sent (the caller's previous snapshot still holds).
   */
  record Answer(LocalSnapshot snapshot, String etag) {}

  /**
   * One broker's snapshot, as {@link #fetchOne(BrokerImage)}.
   *
   * @param leadingOnly only the partitions it leads (all a cluster view takes from it)
   * @param ifNoneMatch the tag of the snapshot the caller has, or null: an unchanged snapshot then
   *     costs a 304
   */
  CompletableFuture<Optional<Answer>> fetchOne(
      BrokerImage broker, boolean leadingOnly, String ifNoneMatch) {
    try {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(
                  urls.uri(
                      broker.host(),
                      broker.port(),
                      "/dashboard/state?scope=local" + (leadingOnly ? "&leading_only=true" : "")))
              .timeout(timeout) // ends the exchange itself; orTimeout only stops our waiting
              .header("Accept", "application/json")
              .GET();
      if (clusterSecret != null && !clusterSecret.isEmpty()) {
        request.header(InternalApi.SECRET_HEADER, clusterSecret);
      }
      if (ifNoneMatch != null) {
        request.header("If-None-Match", ifNoneMatch);
      }
      return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray())
          .thenApply(response -> parse(broker.brokerId(), response, ifNoneMatch))
          .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
          .exceptionally(error -> Optional.empty());
    } catch (RuntimeException e) { // e.g. an endpoint that makes no valid URI
      return CompletableFuture.completedFuture(Optional.empty());
    }
  }

  private Optional<Answer> parse(int brokerId, HttpResponse<byte[]> response, String sentTag) {
    String etag = response.headers().firstValue("ETag").orElse(null);
    if (response.statusCode() == 304 && sentTag != null) {
      return Optional.of(new Answer(null, sentTag));
    }
    if (response.statusCode() != 200) {
      return Optional.empty();
    }
    LocalSnapshot answer = json.readValue(response.body(), LocalSnapshot.class);
    // The endpoint may now belong to another broker (a restart on a reused port): its partitions
    // are not these.
    return answer != null && answer.brokerId() == brokerId && answer.partitions() != null
        ? Optional.of(new Answer(answer, etag))
        : Optional.empty();
  }
}
