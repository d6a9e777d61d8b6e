package dev.tributary.e2e;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * kafka-clients' producer with its defaults (idempotent, {@code acks=all}) sending 0, 1, 2, ... on
 * a thread of its own, number {@code n} to partition {@code n % partitions}, until closed. At most
 * {@value #IN_FLIGHT} records are unacknowledged at a time, so when one partition stalls the stream
 * soon waits for it. Each acknowledgement and failure is recorded, with the longest gap between two
 * acknowledgements (the stall a failover costs the producer).
 */
final class NumberedStream implements AutoCloseable {
  static final int IN_FLIGHT = 1_000;

  /** A bound on the whole stream, however long a test runs. */
  static final long MAX_RECORDS = 200_000;

  /**
   * Pacing: a paced stream keeps the records to read back few (a broker restart under load takes
   * tens of seconds) and still has records in flight at every moment.
   */
  static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final KafkaProducer<String, String> producer;
  private final String topic;
  private final int partitions;
  private final Semaphore unacknowledged = new Semaphore(IN_FLIGHT);
  private final Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
  private final Map<Long, Exception> failed = new ConcurrentHashMap<>();
  private final Thread thread;
  private volatile long sent;
  private volatile boolean closing;

  // Written only by the producer's I/O thread, which runs every callback; read after close(), which
  // joins it. Per partition, and at [partitions] for the stream as a whole; 0: none yet.
  private final long[] lastAckNanos;
  private final long[] longestGapNanos;

  /**
   * @param producerConfigs the bootstrap servers (and nothing else, to keep the defaults)
   */
  NumberedStream(Properties producerConfigs, String topic, int partitions) {
    this.topic = topic;
    this.partitions = partitions;
    this.lastAckNanos = new long[partitions + 1];
    this.longestGapNanos = new long[partitions + 1];
    this.producer =
        new KafkaProducer<>(producerConfigs, new StringSerializer(), new StringSerializer());
    this.thread = new Thread(this::run, "numbered-stream-" + topic);
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    try {
      for (long seq = 0; !closing && seq < MAX_RECORDS; ) {
        if (!unacknowledged.tryAcquire(100, TimeUnit.MILLISECONDS)) {
          continue;
        }
        long number = seq;
        producer.send(
            new ProducerRecord<>(topic, (int) (number % partitions), null, Long.toString(number)),
            (metadata, error) -> {
              if (error == null) {
                long now = System.nanoTime();
                for (int i : new int[] {metadata.partition(), partitions}) {
                  if (lastAckNanos[i] != 0) {
                    longestGapNanos[i] = Math.max(longestGapNanos[i], now - lastAckNanos[i]);
                  }
                  lastAckNanos[i] = now;
                }
                acknowledged.add(number);
              } else {
                failed.put(number, error);
              }
              unacknowledged.release();
            });
        sent = ++seq;
        LockSupport.parkNanos(PAUSE_NANOS); // pacing, not a wait for a condition
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Waits until at least {@code count} records are acknowledged; fails at once on a failed send.
   */
  void awaitAcknowledged(long count) {
    await(count + " records of " + topic + " acknowledged")
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              if (!failed.isEmpty()) {
                throw new AssertionError("sends failed: " + failed);
              }
              return acknowledged.size() >= count;
            });
  }

  long acknowledgedCount() {
    return acknowledged.size();
  }

  Set<Long> acknowledged() {
    return Set.copyOf(acknowledged);
  }

  Map<Long, Exception> failed() {
    return Map.copyOf(failed);
  }

  /** How many numbers were handed to the producer: 0 to sent() - 1. */
  long sent() {
    return sent;
  }

  /** The longest time between two acknowledgements of {@code partition}'s records (after close). */
  long longestGapMs(int partition) {
    return longestGapNanos[partition] / 1_000_000;
  }

  /** The longest time between two acknowledgements of any records (after close). */
  long longestGapMs() {
    return longestGapNanos[partitions] / 1_000_000;
  }

  /** Stops sending, waits for every record sent to be acknowledged or failed, and closes. */
  @Override
  public void close() throws InterruptedException {
    closing = true;
    thread.join(Duration.ofSeconds(10).toMillis());
    producer.flush();
    producer.close();
  }
}
