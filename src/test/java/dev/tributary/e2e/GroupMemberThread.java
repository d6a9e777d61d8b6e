package dev.tributary.e2e;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A Kafka consumer group member on its own thread, as an application runs one: subscribe, poll,
 * process, {@code commitSync} after each non-empty poll. A commit that fails (coordinator
 * unreachable, the member expired, a rebalance under way) is counted and the loop goes on, so the
 * next poll finds out what happened and rejoins, as kafka-clients intends. Clients find a dead
 * connection within about a second ({@code socket.connection.setup.timeout.ms} 1 s, requests 5 s),
 * where the defaults would take up to 30 s.
 */
final class GroupMemberThread implements AutoCloseable {
  private final Thread thread;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final AtomicLong records = new AtomicLong();
  private final AtomicLong failedCommits = new AtomicLong();
  private volatile KafkaConsumer<String, String> consumer;

  GroupMemberThread(KafkaClients kafka, String group, String clientId, String topic) {
    Properties configs = kafka.groupConfigs(group, clientId);
    configs.put("socket.connection.setup.timeout.ms", "1000");
    configs.put("socket.connection.setup.timeout.max.ms", "2000");
    configs.put("request.timeout.ms", "5000");
    configs.put("default.api.timeout.ms", "10000");
    thread = new Thread(() -> run(configs, topic), "member-" + clientId);
    thread.setDaemon(true);
    thread.start();
  }

  private void run(Properties configs, String topic) {
    try (KafkaConsumer<String, String> member =
        new KafkaConsumer<>(configs, new StringDeserializer(), new StringDeserializer())) {
      consumer = member;
      member.subscribe(List.of(topic));
      while (running.get()) {
        try {
          var polled = member.poll(Duration.ofMillis(200));
          for (ConsumerRecord<String, String> record : polled) {
            seen.add(unquote(record.value()));
            records.incrementAndGet();
          }
          if (!polled.isEmpty()) {
            member.commitSync(Duration.ofSeconds(2));
          }
        } catch (WakeupException e) {
          return;
        } catch (KafkaException e) {
          failedCommits.incrementAndGet(); // the next poll rejoins or finds the coordinator
        }
      }
    }
  }

  /** The JSON producer's values arrive as JSON strings: {@code "v12"} with its quotes. */
  private static String unquote(String value) {
    return value != null && value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
        ? value.substring(1, value.length() - 1)
        : value;
  }

  /** The distinct values this member has consumed. */
  Set<String> seen() {
    return seen;
  }

  /** Records consumed, counting those consumed again after a rebalance. */
  long records() {
    return records.get();
  }

  long failedCommits() {
    return failedCommits.get();
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    KafkaConsumer<String, String> member = consumer;
    if (member != null) {
      member.wakeup();
    }
    thread.join(15_000);
  }
}
