import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Apache Kafka's partition leader failover, measured the way scripts/bench-partition-failover measures Tributary's:
 * on a running 3-node kafka-anchor cluster, create topic `fo` (1 partition, RF 3, min.insync.replicas 2), write one
 * record with acks=all, SIGKILL the partition's leader (through kafka-anchor), then time until an acks=all send to
 * that partition succeeds again (each attempt with a 1 s delivery timeout, retried at once), and check the record
 * written before the kill is still there. Run by scripts/bench-partition-failover-kafka with kafka-clients on the
 * classpath (single-file source launch).
 */
public class KafkaPartitionFailover {
  public static void main(String[] args) throws Exception {
    String anchor = args[0];
    String bootstrap = args[1];
    Properties admin = new Properties();
    admin.put("bootstrap.servers", bootstrap);
    try (Admin a = Admin.create(admin)) {
      a.createTopics(List.of(new NewTopic("fo", 1, (short) 3).configs(Map.of("min.insync.replicas", "2"))))
          .all().get();
      Thread.sleep(2_000);
      int leader = a.describeTopics(List.of("fo")).allTopicNames().get().get("fo").partitions().get(0).leader().id();
      Properties p = new Properties();
      p.put("bootstrap.servers", bootstrap);
      p.put("acks", "all");
      p.put("key.serializer", StringSerializer.class.getName());
      p.put("value.serializer", StringSerializer.class.getName());
      p.put("request.timeout.ms", "500");
      p.put("delivery.timeout.ms", "1000");
      p.put("linger.ms", "0");
      p.put("metadata.max.age.ms", "500");
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
        long before = producer.send(new ProducerRecord<>("fo", 0, null, "before")).get().offset();
        long start = System.nanoTime(); // the clock starts just before the SIGKILL
        new ProcessBuilder(anchor, "kill", Integer.toString(leader)).inheritIO().start().waitFor();
        long afterMs;
        while (true) {
          try {
            producer.send(new ProducerRecord<>("fo", 0, null, "after")).get(2, TimeUnit.SECONDS);
            afterMs = (System.nanoTime() - start) / 1_000_000;
            break;
          } catch (Exception e) {
            Thread.sleep(20);
          }
        }
        int newLeader =
            a.describeTopics(List.of("fo")).allTopicNames().get().get("fo").partitions().get(0).leader().id();
        System.out.println(
            "RESULT kafka killed_leader=" + leader + " new_leader=" + newLeader + " acks_all_again_ms=" + afterMs
                + " offset_before=" + before);
      }
    }
  }
}
