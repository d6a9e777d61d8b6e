package dev.tributary.e2e;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One member of a consumer group: a {@link KafkaConsumer} that subscribes to a topic on a thread of
 * its own and, after each poll, counts what it read into a map the group shares and commits it
 * (commitSync): processed, then committed, so a record is read at least once. A commit refused
 * because a rebalance took the partitions is normal (their records come again to the next owner);
 * any other error stops the member and is kept for the test to report.
 */
final class KafkaConsumerThread implements AutoCloseable {
  private final String name;
  private final KafkaConsumer<String, String> consumer;
  private final Thread thread;

  /** Value → how many times the group read it; shared by the members of one group. */
  private final Map<String, Integer> consumed;

  /** Partitions this member read records from (as an assigned owner). */
  private final Set<Integer> partitionsRead = ConcurrentHashMap.newKeySet();

  private volatile Set<Integer> assignment = Set.of();
  private volatile Throwable failure;
  private volatile boolean stopping;

  /**
   * @param consumerConfigs bootstrap and group settings (deserializers are set here)
   */
  KafkaConsumerThread(
      String name, Properties consumerConfigs, String topic, Map<String, Integer> consumed) {
    this.name = name;
    this.consumed = consumed;
    this.consumer =
        new KafkaConsumer<>(consumerConfigs, new StringDeserializer(), new StringDeserializer());
    this.thread = new Thread(() -> run(topic), "consumer-" + name);
    thread.setDaemon(true);
    thread.start();
  }

  private void run(String topic) {
    try {
      consumer.subscribe(List.of(topic));
      while (!stopping) {
        var records = consumer.poll(Duration.ofMillis(100));
        assignment =
            consumer.assignment().stream()
                .map(TopicPartition::partition)
                .collect(Collectors.toUnmodifiableSet());
        for (ConsumerRecord<String, String> record : records) {
          consumed.merge(record.value(), 1, Integer::sum);
          partitionsRead.add(record.partition());
        }
        if (!records.isEmpty()) {
          commit();
        }
      }
    } catch (WakeupException e) {
      if (!stopping) {
        failure = e;
      }
    } catch (Throwable e) {
      failure = e;
    } finally {
      assignment = Set.of();
      consumer.close(); // leaves the group: its partitions go to the others at once
    }
  }

  private void commit() {
    try {
      consumer.commitSync();
    } catch (CommitFailedException | RebalanceInProgressException e) {
      // A rebalance took the partitions: their records will be read again by the next owner.
    }
  }

  String name() {
    return name;
  }

  /** The partitions the group gave it, as of its last poll (empty while it rebalances). */
  Set<Integer> assignment() {
    return assignment;
  }

  Set<Integer> partitionsRead() {
    return Set.copyOf(partitionsRead);
  }

  /** Fails the test if the member stopped on an error. */
  void assertHealthy() {
    if (failure != null) {
      throw new AssertionError("consumer " + name + " failed", failure);
    }
    if (!thread.isAlive() && !stopping) {
      throw new AssertionError("consumer " + name + " stopped");
    }
  }

  /** Stops polling, closes the consumer (leaving the group) and waits for its thread. */
  @Override
  public void close() throws InterruptedException {
    stopping = true;
    consumer.wakeup();
    thread.join(Duration.ofSeconds(40).toMillis());
    if (thread.isAlive()) {
      throw new AssertionError("consumer " + name + " did not close within 40 s");
    }
  }
}
