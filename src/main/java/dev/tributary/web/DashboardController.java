package dev.tributary.web;

import dev.tributary.replication.Partition;
import dev.tributary.server.BrokerServer;
import java.util.Comparator;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ResponseBody;

/** The dashboard page and the snapshot it polls. */
@Controller
class DashboardController {
  private final BrokerServer broker;

  DashboardController(BrokerServer broker) {
    this.broker = broker;
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

  @GetMapping("/dashboard/state")
  @ResponseBody
  ResponseEntity<ClusterSnapshot> state() {
    List<ClusterSnapshot.BrokerRow> brokers =
        broker.metadata().brokers().values().stream()
            .map(b -> new ClusterSnapshot.BrokerRow(
                b.brokerId(), b.host(), b.port(), b.fenced() ? "fenced" : "alive",
                b.brokerId() == broker.activeControllerId()))
            .toList();
    List<ClusterSnapshot.PartitionRow> partitions =
        broker.replicaManager().partitions().stream()
            .sorted(Comparator.comparing((Partition p) -> p.topicPartition().topic())
                .thenComparingInt(p -> p.topicPartition().partition()))
            .map(DashboardController::row)
            .toList();
    return ResponseEntity.ok(
        new ClusterSnapshot(
            broker.clusterId(), broker.config().brokerId(), broker.activeControllerId(), broker.controllerEpoch(),
            brokers, partitions));
  }

  private static ClusterSnapshot.PartitionRow row(Partition p) {
    return new ClusterSnapshot.PartitionRow(
        p.topicPartition().topic(), p.topicPartition().partition(), p.leaderId(),
        p.leaderEpoch(), p.replicas(), p.isr(), p.logStartOffset(), p.highWatermark(), p.logEndOffset(),
        p.log().size(), p.log().numberOfSegments(), p.statusLine());
  }
}
