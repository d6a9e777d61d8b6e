import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Apache Kafka's controller failover, measured the way scripts/bench-failover measures Tributary's: find the
 * active controller of a running 3-node kafka-anchor cluster, SIGKILL it (through kafka-anchor), then time until
 * a topic creation succeeds and until the killed node drops out of the cluster's broker list (fenced).
 * Run by scripts/bench-failover-kafka with kafka-clients on the classpath (single-file source launch).
 */
public class KafkaControllerFailover {
  public static void main(String[] args) throws Exception {
    String anchor = args[0];
    String bootstrap = args[1];
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("request.timeout.ms", "1000");
    props.put("default.api.timeout.ms", "2000");
    try (Admin admin = Admin.create(props)) {
      int controller = admin.describeMetadataQuorum().quorumInfo().get().leaderId();
      Set<Integer> before = brokers(admin);
      long start = System.nanoTime(); // as scripts/bench-failover: the clock starts just before the SIGKILL
      new ProcessBuilder(anchor, "kill", Integer.toString(controller)).inheritIO().start().waitFor();
      long createdMs = -1;
      long fencedMs = -1;
      for (int attempt = 0; createdMs < 0 || fencedMs < 0; attempt++) {
        if (createdMs < 0) {
          try {
            admin.createTopics(List.of(new NewTopic("failover-" + start + "-" + attempt, 1, (short) 1))).all().get();
            createdMs = (System.nanoTime() - start) / 1_000_000;
          } catch (Exception e) {
            // no controller yet, or our request reached the dead node: try again
          }
        }
        if (fencedMs < 0) {
          try {
            if (!brokers(admin).contains(controller)) {
              fencedMs = (System.nanoTime() - start) / 1_000_000;
            }
          } catch (Exception e) {
            // metadata request failed: try again
          }
        }
        Thread.sleep(20);
      }
      System.out.println(
          "RESULT kafka killed=" + controller + " brokers_before=" + before + " created_ms=" + createdMs
              + " fenced_ms=" + fencedMs);
    }
  }

  private static Set<Integer> brokers(Admin admin) throws Exception {
    return admin.describeCluster().nodes().get().stream().map(n -> n.id()).collect(Collectors.toSet());
  }
}
