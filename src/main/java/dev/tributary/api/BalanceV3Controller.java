package dev.tributary.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tributary.auth.RequestContexts;
import dev.tributary.common.TopicPartition;
import dev.tributary.metadata.BalancePlan;
import dev.tributary.server.BalanceProposal;
import dev.tributary.server.BalanceService;
import dev.tributary.server.MetadataCache;
import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The built-in balancer over HTTP (Tributary's own resource; Kafka leaves balancing to external
 * tools): {@code GET .../balance} proposes a plan (and shows this broker's last execution), {@code
 * POST .../balance} carries a fresh plan out as reassignments. A thin adapter over {@link
 * BalanceService}.
 */
@RestController
class BalanceV3Controller {
  private final MetadataCache broker;
  private final BalanceService balance;
  private final RequestContexts contexts;
  private final JsonMapper json;

  BalanceV3Controller(
      MetadataCache broker, BalanceService balance, RequestContexts contexts, JsonMapper json) {
    this.broker = broker;
    this.balance = balance;
    this.contexts = contexts;
    this.json = json;
  }

  record Move(
      @JsonProperty("topic_name") String topicName,
      @JsonProperty("partition_id") int partitionId,
      @JsonProperty("current_replicas") List<Integer> currentReplicas,
      @JsonProperty("target_replicas") List<Integer> targetReplicas) {}

  record BrokerLoad(
      @JsonProperty("broker_id") int brokerId,
      @JsonProperty("role") String role,
      @JsonProperty("replicas_before") int replicasBefore,
      @JsonProperty("replicas_after") int replicasAfter,
      @JsonProperty("preferred_leaders_before") int preferredLeadersBefore,
      @JsonProperty("preferred_leaders_after") int preferredLeadersAfter,
      @JsonProperty("bytes_in_per_sec_before") Double bytesInPerSecBefore,
      @JsonProperty("bytes_in_per_sec_after") Double bytesInPerSecAfter,
      @JsonProperty("size_bytes") Long sizeBytes) {}

  record Skipped(
      @JsonProperty("topic_name") String topicName,
      @JsonProperty("partition_id") int partitionId,
      @JsonProperty("replicas") List<Integer> replicas,
      @JsonProperty("reason") String reason) {}

  record Failure(
      @JsonProperty("topic_name") String topicName,
      @JsonProperty("partition_id") int partitionId,
      @JsonProperty("message") String message) {}

  record Execution(
      @JsonProperty("state") String state,
      @JsonProperty("moves_total") int movesTotal,
      @JsonProperty("moves_done") int movesDone,
      @JsonProperty("moves_in_flight") int movesInFlight,
      @JsonProperty("moves_failed") int movesFailed,
      @JsonProperty("failures") List<Failure> failures,
      @JsonProperty("exclude") Set<Integer> exclude,
      @JsonProperty("max_concurrent_moves") int maxConcurrentMoves,
      @JsonProperty("started_at_ms") long startedAtMs,
      @JsonProperty("finished_at_ms") Long finishedAtMs,
      @JsonProperty("plan_text") String planText,
      @JsonProperty("throttle_bytes_per_second") Long throttleBytesPerSecond) {}

  record Balance(
      @JsonProperty("kind") String kind,
      @JsonProperty("cluster_id") String clusterId,
      @JsonProperty("broker_id") int brokerId,
      @JsonProperty("balanced") boolean balanced,
      @JsonProperty("replicas_to_copy") int replicasToCopy,
      @JsonProperty("text") String text,
      @JsonProperty("moves") List<Move> moves,
      @JsonProperty("brokers") List<BrokerLoad> brokers,
      @JsonProperty("skipped") List<Skipped> skipped,
      @JsonProperty("bytes_in_known") boolean bytesInKnown,
      @JsonProperty("load_missing_from") Set<Integer> loadMissingFrom,
      @JsonProperty("execution") Execution execution) {}

  /**
   * The plan for the cluster as it is now ({@code exclude}: brokers to empty), and the last run.
   */
  @GetMapping("/v3/clusters/{clusterId}/balance")
  CompletableFuture<ResponseEntity<Balance>> propose(
      @PathVariable String clusterId,
      @RequestParam(name = "exclude", required = false) String exclude,
      HttpServletRequest http) {
    ApiRequests.requireCluster(broker, clusterId);
    return balance
        .proposeAsync(contexts.of(http), brokerIds(exclude))
        .thenApply(
            proposal ->
                ResponseEntity.ok()
                    .contentType(MediaType.APPLICATION_JSON)
                    .body(body(proposal, balance.execution().orElse(null))));
  }

  /**
   * Plans afresh and starts carrying it out: {@code {"exclude": [ids], "max_concurrent_moves": n,
   * "throttle_bytes_per_second": b}} (all optional; b above 0 copies under replication throttles).
   * 202 with the plan and the execution as it starts; 409 40914 while one runs.
   */
  @PostMapping("/v3/clusters/{clusterId}/balance")
  CompletableFuture<ResponseEntity<Balance>> execute(
      @PathVariable String clusterId,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest http) {
    ApiRequests.requireCluster(broker, clusterId);
    JsonNode request =
        body == null || body.length == 0 ? json.createObjectNode() : ApiRequests.object(json, body);
    Set<Integer> exclude = new LinkedHashSet<>();
    JsonNode ids = request.get("exclude");
    if (ids != null && !ids.isNull()) {
      if (!ids.isArray()) {
        throw RestException.badRequest("\"exclude\" must be a list of broker ids");
      }
      for (JsonNode id : ids) {
        exclude.add(brokerId(id));
      }
    }
    int maxMoves = BalanceService.DEFAULT_MAX_CONCURRENT_MOVES;
    JsonNode max = request.get("max_concurrent_moves");
    if (max != null && !max.isNull()) {
      if (!max.isIntegralNumber() || !max.canConvertToInt()) {
        throw RestException.badRequest("\"max_concurrent_moves\" must be an integer");
      }
      maxMoves = max.intValue();
    }
    long throttle = 0;
    JsonNode rate = request.get("throttle_bytes_per_second");
    if (rate != null && !rate.isNull()) {
      if (!rate.isIntegralNumber() || !rate.canConvertToLong() || rate.longValue() < 0) {
        throw RestException.badRequest(
            "\"throttle_bytes_per_second\" must be a whole number of bytes per second, at least 0");
      }
      throttle = rate.longValue();
    }
    return balance
        .executeAsync(contexts.of(http), exclude, maxMoves, throttle)
        .thenApply(
            started ->
                ResponseEntity.status(HttpStatus.ACCEPTED)
                    .contentType(MediaType.APPLICATION_JSON)
                    .body(body(started.proposal(), started)));
  }

  /** Stops this broker's running balance: 202 with where it stopped; 404 40412 if none runs. */
  @org.springframework.web.bind.annotation.DeleteMapping("/v3/clusters/{clusterId}/balance")
  ResponseEntity<Balance> stop(@PathVariable String clusterId, HttpServletRequest http) {
    ApiRequests.requireCluster(broker, clusterId);
    BalanceService.ExecutionStatus stopped = balance.stop(contexts.of(http));
    return ResponseEntity.status(HttpStatus.ACCEPTED)
        .contentType(MediaType.APPLICATION_JSON)
        .body(body(stopped.proposal(), stopped));
  }

  private Balance body(BalanceProposal proposal, BalanceService.ExecutionStatus run) {
    BalancePlan plan = proposal.plan();
    boolean rates = plan.bytesInGiven();
    return new Balance(
        "TributaryBalance",
        broker.clusterId(),
        broker.brokerId(),
        plan.isBalanced(),
        plan.replicasToCopy(),
        plan.render(),
        plan.moves().stream()
            .map(
                m ->
                    new Move(
                        m.partition().topic(),
                        m.partition().partition(),
                        m.currentReplicas(),
                        m.targetReplicas()))
            .toList(),
        plan.brokers().stream()
            .map(
                b ->
                    new BrokerLoad(
                        b.brokerId(),
                        b.role().name().toLowerCase(java.util.Locale.ROOT),
                        b.replicasBefore(),
                        b.replicasAfter(),
                        b.preferredLeadersBefore(),
                        b.preferredLeadersAfter(),
                        rates ? b.bytesInBefore() : null,
                        rates ? b.bytesInAfter() : null,
                        proposal.sizeBytes().get(b.brokerId())))
            .toList(),
        plan.skipped().stream()
            .map(
                s ->
                    new Skipped(
                        s.partition().topic(), s.partition().partition(), s.replicas(), s.reason()))
            .toList(),
        rates,
        proposal.loadMissingFrom(),
        run == null ? null : execution(run));
  }

  private static Execution execution(BalanceService.ExecutionStatus run) {
    List<Failure> failures = new ArrayList<>();
    run.failed()
        .forEach(
            (TopicPartition tp, String why) ->
                failures.add(new Failure(tp.topic(), tp.partition(), why)));
    return new Execution(
        run.state().name().toLowerCase(java.util.Locale.ROOT),
        run.plan().moves().size(),
        run.done().size(),
        run.inFlight().size(),
        run.failed().size(),
        failures,
        run.excluded(),
        run.maxConcurrentMoves(),
        run.startedAtMs(),
        run.finishedAtMs() < 0 ? null : run.finishedAtMs(),
        run.plan().render(),
        run.throttleBytesPerSecond() > 0 ? run.throttleBytesPerSecond() : null);
  }

  private static Set<Integer> brokerIds(String list) {
    Set<Integer> ids = new LinkedHashSet<>();
    if (list == null || list.isBlank()) {
      return ids;
    }
    for (String part : list.split(",")) {
      try {
        int id = Integer.parseInt(part.trim());
        if (id < 0) {
          throw new NumberFormatException();
        }
        ids.add(id);
      } catch (NumberFormatException e) {
        throw RestException.badRequest(
            "exclude must be a comma-separated list of broker ids, e.g. exclude=1,2");
      }
    }
    return ids;
  }

  private static int brokerId(JsonNode id) {
    if (!id.isIntegralNumber() || !id.canConvertToInt() || id.intValue() < 0) {
      throw RestException.badRequest(
          "\"exclude\" must be a list of broker ids (non-negative integers); got " + id);
    }
    return id.intValue();
  }
}
