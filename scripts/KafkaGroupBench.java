import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Apache Kafka's consumer-group behaviour, measured the way scripts/TributaryGroupBench.java measures Tributary's, on
 * a running 3-node kafka-anchor cluster whose topic `gb` is pre-filled: (1) 3 KafkaConsumer threads of a fresh group
 * read it all; (2) rebalance time when 1 of 4 members leaves (close()) or stops polling (its heartbeat thread leaves
 * at max.poll.interval.ms); (3) coordinator failover (SIGKILL of the group coordinator's node through kafka-anchor,
 * restarted afterwards with the command line it ran). Classic group protocol (the client's default). Run by
 * scripts/bench-groups-kafka with the anchor's jars on the classpath (single-file source launch).
 *
 * <p>Arguments: ANCHOR BOOTSTRAP N TRIALS [TOPIC] [PARTITIONS] [RECORD_SIZE]. Loopback only.
 */
public class KafkaGroupBench {
  static String anchor;
  static String anchorDir;
  static String bootstrap;
  static String topic;
  static int partitions;
  static int recordSize;
  static Admin admin;

  static final class Member {
    final String name;
    final KafkaConsumer<byte[], byte[]> consumer;
    final Duration pollTimeout;
    final Set<Integer> owned = ConcurrentHashMap.newKeySet();
    final AtomicInteger assignments = new AtomicInteger();
    volatile boolean stop;
    volatile boolean closeOnStop;
    volatile boolean commitWanted;
    volatile long commitOkNanos = -1;
    volatile long lastPollEndNanos;
    volatile long closeStartNanos;
    Thread thread;
    AtomicLong delivered;
    AtomicLong valueBytes;
    AtomicLongArray nextOffset;
    AtomicLong firstRecordNanos;

    Member(String group, String name, Map<String, String> extra, Duration pollTimeout) {
      Properties p = new Properties();
      p.put("bootstrap.servers", bootstrap);
      p.put("group.id", group);
      p.put("client.id", name);
      p.put("group.protocol", "classic");
      p.put("enable.auto.commit", "false");
      p.put("key.deserializer", ByteArrayDeserializer.class.getName());
      p.put("value.deserializer", ByteArrayDeserializer.class.getName());
      p.putAll(extra);
      this.name = name;
      this.consumer = new KafkaConsumer<>(p);
      this.pollTimeout = pollTimeout;
    }

    void start() {
      thread = new Thread(this::run, "poll-" + name);
      thread.setDaemon(true);
      thread.start();
    }

    void run() {
      consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> ps) {
          ps.forEach(tp -> owned.remove(tp.partition()));
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> ps) {
          ps.forEach(tp -> owned.add(tp.partition()));
          assignments.incrementAndGet();
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> ps) {
          ps.forEach(tp -> owned.remove(tp.partition()));
        }
      });
      try {
        while (!stop) {
          ConsumerRecords<byte[], byte[]> records;
          try {
            records = consumer.poll(pollTimeout);
          } catch (WakeupException e) {
            lastPollEndNanos = System.nanoTime();
            break;
          } catch (RuntimeException e) {
            lastPollEndNanos = System.nanoTime();
            sleep(50);
            continue;
          }
          lastPollEndNanos = System.nanoTime();
          if (delivered != null && !records.isEmpty()) {
            count(records);
          }
          if (commitWanted) {
            tryCommit();
          }
        }
      } finally {
        if (closeOnStop) {
          closeStartNanos = System.nanoTime();
          consumer.close(Duration.ofSeconds(30));
        }
      }
    }

    void count(ConsumerRecords<byte[], byte[]> records) {
      long[] maxNext = new long[partitions];
      long bytes = 0;
      for (ConsumerRecord<byte[], byte[]> r : records) {
        bytes += r.value() == null ? 0 : r.value().length;
        if (r.offset() + 1 > maxNext[r.partition()]) {
          maxNext[r.partition()] = r.offset() + 1;
        }
      }
      firstRecordNanos.compareAndSet(0, System.nanoTime());
      for (int p = 0; p < partitions; p++) {
        long v = maxNext[p];
        if (v > 0) {
          nextOffset.accumulateAndGet(p, v, Math::max);
        }
      }
      valueBytes.addAndGet(bytes);
      delivered.addAndGet(records.count());
    }

    /** Commits the position of every assigned partition; an empty assignment does not count. */
    void tryCommit() {
      Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
      for (TopicPartition tp : consumer.assignment()) {
        try {
          offsets.put(tp, new OffsetAndMetadata(consumer.position(tp, Duration.ofMillis(200))));
        } catch (RuntimeException e) {
          // no position yet
        }
      }
      if (offsets.isEmpty()) {
        return;
      }
      try {
        consumer.commitSync(offsets, Duration.ofSeconds(1));
        commitOkNanos = System.nanoTime();
        commitWanted = false;
      } catch (RuntimeException e) {
        // retried after the next poll
      }
    }

    void stopPolling() throws InterruptedException {
      stop = true;
      thread.join(60_000);
    }

    void close() {
      try {
        consumer.close(Duration.ofSeconds(10));
      } catch (RuntimeException ignored) {
        // already closed
      }
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static final Map<String, String> REBALANCE_CONFIGS =
      Map.of("auto.offset.reset", "latest", "session.timeout.ms", "6000", "heartbeat.interval.ms", "500",
          "max.poll.interval.ms", "6000");

  static Member rebalanceMember(String group, String name) {
    Member m = new Member(group, name, REBALANCE_CONFIGS, Duration.ofMillis(200));
    m.start();
    return m;
  }

  static boolean balanced(List<Member> members) {
    Set<Integer> all = new HashSet<>();
    int sum = 0;
    for (Member m : members) {
      Set<Integer> s = Set.copyOf(m.owned);
      if (s.isEmpty()) {
        return false;
      }
      all.addAll(s);
      sum += s.size();
    }
    return sum == partitions && all.size() == partitions;
  }

  static long await(BooleanSupplier condition, long timeoutMs, long everyMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return System.nanoTime();
      }
      Thread.sleep(everyMs);
    }
    return -1;
  }

  static void require(long t, String what) {
    if (t < 0) {
      throw new IllegalStateException("timed out waiting until " + what);
    }
  }

  static String stats(List<Long> values) {
    List<Long> v = new ArrayList<>(values);
    v.sort(null);
    int n = v.size();
    double median = n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2.0;
    return String.format("median %.0f ms, min %d ms, max %d ms (n=%d)", median, v.get(0), v.get(n - 1), n);
  }

  // ------------------------------------------------------------------------------------------------ phases

  static void groupConsume(long expected) throws Exception {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    long[] end = new long[partitions];
    long total = 0;
    var offsets = admin.listOffsets(latest).all().get();
    for (var e : offsets.entrySet()) {
      end[e.getKey().partition()] = e.getValue().offset();
      total += e.getValue().offset();
    }
    if (total != expected) {
      System.out.println("note: the topic holds " + total + " records (expected " + expected + "); reading all");
    }
    String group = "gb-read-" + System.currentTimeMillis();
    AtomicLong delivered = new AtomicLong();
    AtomicLong valueBytes = new AtomicLong();
    AtomicLongArray next = new AtomicLongArray(partitions);
    AtomicLong first = new AtomicLong();
    List<Member> members = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      Member m = new Member(group, "r" + i, Map.of("auto.offset.reset", "earliest"), Duration.ofMillis(1000));
      m.delivered = delivered;
      m.valueBytes = valueBytes;
      m.nextOffset = next;
      m.firstRecordNanos = first;
      members.add(m);
    }
    long t0 = System.nanoTime(); // from the subscription
    members.forEach(Member::start);
    long done = -1;
    long lastProgress = System.nanoTime();
    long lastDelivered = 0;
    while (done < 0) {
      boolean all = true;
      for (int p = 0; p < partitions; p++) {
        if (next.get(p) < end[p]) {
          all = false;
          break;
        }
      }
      if (all) {
        done = System.nanoTime();
        break;
      }
      if (delivered.get() != lastDelivered) {
        lastDelivered = delivered.get();
        lastProgress = System.nanoTime();
      } else if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(60)) {
        throw new IllegalStateException("no records for 60 s; read " + delivered.get() + " of " + total);
      }
      Thread.sleep(1);
    }
    for (Member m : members) {
      m.stop = true;
      m.consumer.wakeup();
    }
    int rebalances = 0;
    for (Member m : members) {
      m.stopPolling();
      rebalances = Math.max(rebalances, m.assignments.get());
      m.close();
    }
    double mib = total * (double) recordSize / (1 << 20);
    double fromSub = (done - t0) / 1e9;
    double fromFirst = (done - first.get()) / 1e9;
    System.out.printf(
        "RESULT kafka group consume, 3 members, %d records of %d B, 6 partitions RF 3: from subscription "
            + "%.0f records/s %.1f MB/s (%.0f ms, join %.0f ms); from first record %.0f records/s %.1f MB/s "
            + "(%.0f ms); delivered %d (duplicates %d), assignments per member up to %d; the anchor sets "
            + "group.initial.rebalance.delay.ms=0 (Kafka's default is 3000)%n",
        total, recordSize, total / fromSub, mib / fromSub, fromSub * 1000, (first.get() - t0) / 1e6,
        total / fromFirst, mib / fromFirst, fromFirst * 1000, delivered.get(), delivered.get() - total,
        rebalances);
  }

  static void rebalance(int trials) throws Exception {
    String group = "gb-rebalance-" + System.currentTimeMillis();
    List<Member> three = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      three.add(rebalanceMember(group, "m" + i));
    }
    List<Long> leave = new ArrayList<>();
    List<Long> silent = new ArrayList<>();
    int seq = 4;
    for (int trial = 1; trial <= trials; trial++) {
      // (a) the 4th leaves explicitly: close() sends LeaveGroup
      Member fourth = rebalanceMember(group, "m" + seq++);
      List<Member> four = new ArrayList<>(three);
      four.add(fourth);
      require(await(() -> balanced(four), 120_000, 5), "4 members hold all 6 partitions");
      Thread.sleep(1_000);
      fourth.closeOnStop = true;
      fourth.stop = true;
      fourth.consumer.wakeup();
      long t1 = await(() -> balanced(three), 120_000, 5);
      require(t1, "3 members hold all 6 partitions after the 4th closed");
      fourth.thread.join(60_000);
      leave.add((t1 - fourth.closeStartNanos) / 1_000_000);
      // (b) a new 4th stops polling; its heartbeat thread leaves the group at max.poll.interval.ms
      Member silentOne = rebalanceMember(group, "m" + seq++);
      List<Member> four2 = new ArrayList<>(three);
      four2.add(silentOne);
      require(await(() -> balanced(four2), 120_000, 5), "4 members hold all 6 partitions again");
      Thread.sleep(1_000);
      silentOne.stopPolling(); // its last poll (200 ms) has returned
      long s0 = silentOne.lastPollEndNanos;
      long s1 = await(() -> balanced(three), 120_000, 5);
      require(s1, "3 members hold all 6 partitions after the 4th stopped polling");
      silent.add((s1 - s0) / 1_000_000);
      silentOne.close();
      System.out.printf("rebalance trial %d: close() of the 4th -> 3 hold all 6 after %d ms; 4th stops polling -> "
          + "after %d ms%n", trial, leave.get(leave.size() - 1), silent.get(silent.size() - 1));
    }
    for (Member m : three) {
      m.stopPolling();
      m.close();
    }
    System.out.println("RESULT kafka rebalance, 4 -> 3 members, member close()s (LeaveGroup): " + stats(leave));
    System.out.println("RESULT kafka rebalance, 4 -> 3 members, member stops polling (max.poll.interval.ms 6000): "
        + stats(silent));
  }

  static boolean isrFull(String t) {
    try {
      TopicDescription d = admin.describeTopics(List.of(t)).allTopicNames().get(5, TimeUnit.SECONDS).get(t);
      return d.partitions().stream().allMatch(p -> p.isr().size() == 3);
    } catch (Exception e) {
      return false;
    }
  }

  static int startedCount(Path log) {
    try {
      String s = Files.readString(log, StandardCharsets.ISO_8859_1);
      int n = 0;
      for (int i = s.indexOf("Kafka Server started"); i >= 0; i = s.indexOf("Kafka Server started", i + 1)) {
        n++;
      }
      return n;
    } catch (Exception e) {
      return 0;
    }
  }

  static void coordinatorFailover(int trials) throws Exception {
    List<Long> commitMs = new ArrayList<>();
    List<Long> heldMs = new ArrayList<>();
    int lostTrials = 0;
    for (int trial = 1; trial <= trials; trial++) {
      String group = "gb-coordinator-" + System.currentTimeMillis();
      List<Member> members = new ArrayList<>();
      for (int i = 1; i <= 3; i++) {
        members.add(rebalanceMember(group, "c" + i));
      }
      require(await(() -> balanced(members), 120_000, 5), "3 members hold all 6 partitions");
      Thread.sleep(1_000);
      int coordinator = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
          .get(10, TimeUnit.SECONDS).coordinator().id();
      Member committer = members.get(0);
      committer.commitWanted = true;
      require(await(() -> committer.commitOkNanos > 0, 30_000, 5), "a commit succeeds before the kill");
      committer.commitOkNanos = -1;
      Path node = Path.of(anchorDir, "cluster", "node" + coordinator);
      long pid = Long.parseLong(Files.readString(node.resolve("pid")).trim());
      // The node's own command line and directory, to restart it the way kafka-anchor started it.
      List<String> cmd = new ArrayList<>(List.of(
          new String(Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline")), StandardCharsets.UTF_8).split("\0")));
      Path cwd = Path.of("/proc/" + pid + "/cwd").toRealPath();
      int[] rebalancesBefore = members.stream().mapToInt(m -> m.assignments.get()).toArray();
      long t0 = System.nanoTime(); // the clock starts just before the SIGKILL
      new ProcessBuilder(anchor, "kill", Integer.toString(coordinator))
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
      committer.commitWanted = true;
      // The members all survive; watch whether their assignment breaks, until the commit is back and at least
      // twice the session timeout has passed.
      long heldAt = 0;
      boolean lost = false;
      long deadline = t0 + TimeUnit.SECONDS.toNanos(120);
      while (System.nanoTime() < deadline) {
        boolean b = balanced(members);
        long now = System.nanoTime();
        if (!b) {
          lost = true;
          heldAt = -1;
        } else if (heldAt < 0) {
          heldAt = now;
        }
        if (committer.commitOkNanos > 0 && heldAt >= 0 && now - t0 > TimeUnit.SECONDS.toNanos(12)
            && now - committer.commitOkNanos > TimeUnit.SECONDS.toNanos(2)) {
          break;
        }
        Thread.sleep(5);
      }
      require(committer.commitOkNanos, "a member's commit succeeds after the kill");
      require(heldAt, "the members hold all 6 partitions after the kill");
      if (lost) {
        lostTrials++;
      }
      commitMs.add((committer.commitOkNanos - t0) / 1_000_000);
      heldMs.add(lost ? (heldAt - t0) / 1_000_000 : 0L);
      int rebalances = 0;
      for (int i = 0; i < members.size(); i++) {
        rebalances = Math.max(rebalances, members.get(i).assignments.get() - rebalancesBefore[i]);
      }
      String newCoordinator;
      try {
        newCoordinator = Integer.toString(admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
            .get(10, TimeUnit.SECONDS).coordinator().id());
      } catch (Exception e) {
        newCoordinator = "?";
      }
      System.out.printf("coordinator trial %d: SIGKILL of coordinator node %d (all 3 clients survive); commitSync "
              + "by %s ok after %d ms; the 3 members %s; rebalances seen by a member %d; new coordinator %s%n",
          trial, coordinator, committer.name, commitMs.get(commitMs.size() - 1),
          lost ? "hold all 6 again after " + heldMs.get(heldMs.size() - 1) + " ms" : "kept all 6 throughout",
          rebalances, newCoordinator);
      for (Member m : members) {
        m.stopPolling();
        m.close();
      }
      Path log = node.resolve("logs").resolve("server.log");
      int started = startedCount(log);
      Process p = new ProcessBuilder(cmd)
          .directory(cwd.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(node.resolve("logs").resolve("stdout.log").toFile()))
          .start();
      Files.writeString(node.resolve("pid"), p.pid() + "\n");
      require(await(() -> startedCount(log) > started, 120_000, 200), "node " + coordinator + " restarted");
      require(await(() -> isrFull(topic) && isrFull("__consumer_offsets"), 120_000, 200),
          "node " + coordinator + " is back in every ISR");
    }
    System.out.println("RESULT kafka coordinator SIGKILL, a member's commitSync succeeds again: " + stats(commitMs));
    System.out.println("RESULT kafka coordinator SIGKILL, the members hold all 6 partitions: " + stats(heldMs)
        + (lostTrials == 0 ? " (0 = never lost: no rebalance)" : " (" + lostTrials + " trial(s) lost partitions)"));
    System.out.println("NOTE kafka: the clients run outside the brokers, so all 3 members survive the coordinator's "
        + "SIGKILL; they find the new coordinator and keep their partitions. (On Tributary the member on the killed "
        + "broker dies with it.)");
  }

  public static void main(String[] args) throws Exception {
    anchor = args[0];
    bootstrap = args[1];
    long n = Long.parseLong(args[2]);
    int trials = Integer.parseInt(args[3]);
    topic = args.length > 4 ? args[4] : "gb";
    partitions = args.length > 5 ? Integer.parseInt(args[5]) : 6;
    recordSize = args.length > 6 ? Integer.parseInt(args[6]) : 100;
    anchorDir = System.getenv().getOrDefault("KAFKA_ANCHOR_DIR", "/tmp/kafka-anchor");
    Properties a = new Properties();
    a.put("bootstrap.servers", bootstrap);
    try (Admin ad = Admin.create(a)) {
      admin = ad;
      groupConsume(n);
      rebalance(trials);
      coordinatorFailover(trials);
    }
  }
}
