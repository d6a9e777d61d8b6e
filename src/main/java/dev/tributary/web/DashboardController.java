package dev.tributary.web;

import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.server.BrokerServer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseBody;

/**
 * The dashboard page and the snapshot it polls. Any broker serves the whole cluster: placement from its metadata
 * image, offsets from each partition's leader ({@link LeaderSnapshotFetcher}, which bounds the wait), merged by
 * {@link ClusterSnapshots}.
 */
@Controller
class DashboardController {
  private final BrokerServer broker;
  private final LeaderSnapshotFetcher leaders;

  DashboardController(BrokerServer broker, LeaderSnapshotFetcher leaders) {
    this.broker = broker;
    this.leaders = leaders;
  }

  @GetMapping("/")
  String dashboard(Model model) {
    model.addAttribute("brokerId", broker.config().brokerId());
    model.addAttribute(
        "produceExample",
        "curl -X POST -H 'Content-Type: application/vnd.kafka.json.v2+json' "
            + "--data '{\"records\":[{\"value\":{\"hello\":\"world\"}}]}' http://" + broker.config().host() + ":"
            + broker.config().port() + "/topics/demo");
    return "dashboard";
  }

  /**
   * {@code scope=cluster} (default): every broker and every partition, see {@link ClusterSnapshot}. {@code
   * scope=local}: only the partitions this broker hosts, see {@link LocalSnapshot}. While the broker is starting
   * both answer 503 (through the API error handler), which the page shows as "broker unreachable".
   */
  @GetMapping("/dashboard/state")
  @ResponseBody
  ResponseEntity<?> state(@RequestParam(defaultValue = ClusterSnapshot.SCOPE) String scope) {
    return switch (scope) {
      case ClusterSnapshot.SCOPE -> ResponseEntity.ok(clusterSnapshot());
      case LocalSnapshot.SCOPE -> ResponseEntity.ok(localSnapshot());
      default -> ResponseEntity.badRequest()
          .body(Map.of("error_code", 40000, "message", "scope must be 'cluster' or 'local', not '" + scope + "'"));
    };
  }

  private LocalSnapshot localSnapshot() {
    return LocalSnapshot.of(broker.config().brokerId(), broker.replicaManager().partitions());
  }

  private ClusterSnapshot clusterSnapshot() {
    int self = broker.config().brokerId();
    MetadataImage image = broker.metadata();
    LocalSnapshot own = localSnapshot();
    Set<Integer> asked = ClusterSnapshots.leadersToAsk(image, self);
    List<BrokerImage> endpoints = asked.stream().flatMap(id -> image.broker(id).stream()).toList();
    Map<Integer, LocalSnapshot> answers = new HashMap<>(leaders.fetch(endpoints));
    answers.put(self, own);
    Set<Integer> unreachable = new TreeSet<>(asked);
    unreachable.removeAll(answers.keySet());
    return ClusterSnapshots.merge(
        broker.clusterId(), self, broker.activeControllerId(), broker.controllerEpoch(), image, answers, unreachable);
  }
}
