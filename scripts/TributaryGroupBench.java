import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Consumer-group behaviour of a running 3-broker Tributary cluster, through the REST Proxy v2 consumer API, measured
 * the way scripts/KafkaGroupBench.java measures Apache Kafka's: (1) 3 members of a fresh group read the pre-filled
 * topic; (2) rebalance time when 1 of 4 members leaves explicitly (DELETE) or stops polling; (3) coordinator failover
 * (SIGKILL of the group's coordinator broker). Run by scripts/bench-groups (plain JDK, single-file source launch).
 *
 * <p>Arguments: PORT_BASE N TRIALS DATA_DIR LAUNCHER [TOPIC] [PARTITIONS] [RECORD_SIZE]. Loopback only.
 */
public class TributaryGroupBench {
  static final String V2 = "application/vnd.kafka.v2+json";
  static final String BINARY = "application/vnd.kafka.binary.v2+json";
  static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(1))
          .build();
  static int portBase;
  static String topic;
  static int partitions;
  static int recordSize;
  static String cid;
  static String dataDir;
  static String launcher;

  static String url(int broker) {
    return "http://127.0.0.1:" + (portBase + broker);
  }

  static double ms(long nanos) {
    return nanos / 1e6;
  }

  // ------------------------------------------------------------------------------------------------ HTTP

  static HttpResponse<String> send(String method, String uri, String contentType, String body, int timeoutMs)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofMillis(timeoutMs));
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    b.method(
        method,
        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static String ok(HttpResponse<String> r, String what) {
    if (r.statusCode() / 100 != 2) {
      throw new IllegalStateException(what + ": HTTP " + r.statusCode() + " " + r.body());
    }
    return r.body();
  }

  static String field(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\":\"?([^\",}]*)").matcher(json);
    return m.find() ? m.group(1) : null;
  }

  // ------------------------------------------------------------------------------------------------ members

  /** A REST consumer instance and the thread that polls it. */
  static final class Member {
    final String name;
    final int broker;
    final String base;
    final String pollQuery;
    volatile boolean stop;
    volatile long lastPollEndNanos;
    Thread thread;
    /** Records delivered, per partition the next offset after the highest seen, first/last record times. */
    final AtomicLong delivered;
    final AtomicLongArray nextOffset;
    final AtomicLong firstRecordNanos;
    final Set<String> generations = java.util.concurrent.ConcurrentHashMap.newKeySet();

    Member(String name, int broker, String base, String pollQuery, AtomicLong delivered, AtomicLongArray next,
        AtomicLong first) {
      this.name = name;
      this.broker = broker;
      this.base = base;
      this.pollQuery = pollQuery;
      this.delivered = delivered;
      this.nextOffset = next;
      this.firstRecordNanos = first;
    }

    void subscribe() throws Exception {
      ok(send("POST", base + "/subscription", V2, "{\"topics\":[\"" + topic + "\"]}", 10_000), "subscribe " + name);
    }

    void start() {
      thread = new Thread(this::pollLoop, "poll-" + name);
      thread.setDaemon(true);
      thread.start();
    }

    void pollLoop() {
      HttpRequest req =
          HttpRequest.newBuilder(URI.create(base + "/records?" + pollQuery))
              .header("Accept", BINARY)
              .timeout(Duration.ofSeconds(30))
              .GET()
              .build();
      while (!stop) {
        try {
          HttpResponse<byte[]> r = HTTP.send(req, HttpResponse.BodyHandlers.ofByteArray());
          lastPollEndNanos = System.nanoTime();
          if (r.statusCode() == 200) {
            if (delivered != null && count(r.body()) > 0) {
              r.headers().firstValue("X-Tributary-Group-Generation").ifPresent(generations::add);
            }
          } else {
            Thread.sleep(50);
          }
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          lastPollEndNanos = System.nanoTime();
          try {
            Thread.sleep(50);
          } catch (InterruptedException ie) {
            return;
          }
        }
      }
    }

    static final byte[] PARTITION = "\"partition\":".getBytes(StandardCharsets.US_ASCII);
    static final byte[] OFFSET = "\"offset\":".getBytes(StandardCharsets.US_ASCII);

    /** Counts `"offset":` occurrences; the partition and offset numbers are read in passing (no JSON parse). */
    long count(byte[] b) {
      long n = 0;
      int partition = -1;
      long[] maxNext = new long[partitions];
      for (int i = 0; i + OFFSET.length < b.length; i++) {
        if (b[i] != '"') {
          continue;
        }
        if (startsWith(b, i, PARTITION)) {
          i += PARTITION.length;
          partition = (int) number(b, i);
        } else if (startsWith(b, i, OFFSET)) {
          i += OFFSET.length;
          n++;
          long offset = number(b, i);
          if (partition >= 0 && partition < partitions && offset + 1 > maxNext[partition]) {
            maxNext[partition] = offset + 1;
          }
        }
      }
      if (n > 0) {
        firstRecordNanos.compareAndSet(0, System.nanoTime());
        for (int p = 0; p < partitions; p++) {
          long v = maxNext[p];
          if (v > 0) {
            nextOffset.accumulateAndGet(p, v, Math::max);
          }
        }
        delivered.addAndGet(n);
      }
      return n;
    }

    static boolean startsWith(byte[] b, int at, byte[] prefix) {
      if (at + prefix.length > b.length) {
        return false;
      }
      for (int j = 0; j < prefix.length; j++) {
        if (b[at + j] != prefix[j]) {
          return false;
        }
      }
      return true;
    }

    static long number(byte[] b, int at) {
      long v = 0;
      while (at < b.length && b[at] >= '0' && b[at] <= '9') {
        v = v * 10 + (b[at++] - '0');
      }
      return v;
    }

    /** The partitions the group gives this member now, or null if the instance did not answer. */
    Set<Integer> assignments() {
      try {
        HttpResponse<String> r = send("GET", base + "/assignments", null, null, 2_000);
        if (r.statusCode() != 200) {
          return null;
        }
        Set<Integer> s = new HashSet<>();
        Matcher m = Pattern.compile("\"partition\":(\\d+)").matcher(r.body());
        while (m.find()) {
          s.add(Integer.parseInt(m.group(1)));
        }
        return s;
      } catch (Exception e) {
        return null;
      }
    }

    void stopPolling() throws InterruptedException {
      stop = true;
      if (thread != null) {
        thread.join(35_000);
      }
    }

    void delete() {
      try {
        send("DELETE", base, V2, null, 10_000);
      } catch (Exception ignored) {
        // gone with its broker
      }
    }
  }

  static Member create(String group, String name, int broker, String configs, String pollQuery,
      AtomicLong delivered, AtomicLongArray next, AtomicLong first) throws Exception {
    String body =
        "{\"name\":\"" + name + "\",\"format\":\"binary\",\"auto.commit.enable\":\"false\"" + configs + "}";
    String answer = ok(send("POST", url(broker) + "/consumers/" + group, V2, body, 10_000), "create " + name);
    return new Member(name, broker, field(answer, "base_uri"), pollQuery, delivered, next, first);
  }

  static final String REBALANCE_CONFIGS =
      ",\"auto.offset.reset\":\"latest\",\"session.timeout.ms\":\"6000\",\"heartbeat.interval.ms\":\"500\"";
  static final String REBALANCE_POLL = "timeout=200&max_bytes=8388608";

  static Member rebalanceMember(String group, String name, int broker) throws Exception {
    Member m = create(group, name, broker, REBALANCE_CONFIGS, REBALANCE_POLL, null, null, null);
    m.subscribe();
    m.start();
    return m;
  }

  /** True when every one of {@code members} holds at least one partition, none twice, and all are held. */
  static boolean balanced(List<Member> members) {
    Set<Integer> all = new HashSet<>();
    int sum = 0;
    for (Member m : members) {
      Set<Integer> s = m.assignments();
      if (s == null || s.isEmpty()) {
        return false;
      }
      all.addAll(s);
      sum += s.size();
    }
    return sum == partitions && all.size() == partitions;
  }

  /** Waits until the condition holds; returns the nanoTime it was seen to hold, or -1 after timeoutMs. */
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
    long[] end = new long[partitions];
    long total = 0;
    for (int p = 0; p < partitions; p++) {
      String o = ok(send("GET", url(1) + "/topics/" + topic + "/partitions/" + p + "/offsets", null, null, 5_000),
          "offsets of partition " + p);
      end[p] = Long.parseLong(field(o, "end_offset"));
      total += end[p];
    }
    if (total != expected) {
      System.out.println("note: the topic holds " + total + " records (expected " + expected + "); reading all");
    }
    String group = "gb-read-" + System.currentTimeMillis();
    AtomicLong delivered = new AtomicLong();
    AtomicLongArray next = new AtomicLongArray(partitions);
    AtomicLong first = new AtomicLong();
    List<Member> members = new ArrayList<>();
    for (int b = 1; b <= 3; b++) {
      members.add(create(group, "r" + b, b, ",\"auto.offset.reset\":\"earliest\"",
          "timeout=1000&max_bytes=8388608", delivered, next, first));
    }
    long t0 = System.nanoTime(); // from the subscription
    for (Member m : members) {
      m.subscribe();
      m.start();
    }
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
    }
    for (Member m : members) {
      m.stopPolling();
      m.delete();
    }
    Set<String> generations = new HashSet<>();
    members.forEach(m -> generations.addAll(m.generations));
    double mib = total * (double) recordSize / (1 << 20);
    double fromSub = (done - t0) / 1e9;
    double fromFirst = (done - first.get()) / 1e9;
    System.out.printf(
        "RESULT tributary group consume, 3 members, %d records of %d B, 6 partitions RF 3: from subscription "
            + "%.0f records/s %.1f MB/s (%.0f ms, join %.0f ms); from first record %.0f records/s %.1f MB/s "
            + "(%.0f ms); delivered %d (duplicates %d), group generations that delivered records %s; the join includes the broker's "
            + "group.initial.rebalance.delay.ms (3000, Kafka's default; the kafka-anchor sets 0)%n",
        total, recordSize, total / fromSub, mib / fromSub, fromSub * 1000, ms(first.get() - t0),
        total / fromFirst, mib / fromFirst, fromFirst * 1000, delivered.get(), delivered.get() - total,
        generations);
  }

  static void rebalance(int trials) throws Exception {
    String group = "gb-rebalance-" + System.currentTimeMillis();
    List<Member> three = new ArrayList<>();
    for (int b = 1; b <= 3; b++) {
      three.add(rebalanceMember(group, "m" + b, b));
    }
    List<Long> leave = new ArrayList<>();
    List<Long> silent = new ArrayList<>();
    int seq = 4;
    for (int trial = 1; trial <= trials; trial++) {
      // (a) the 4th leaves explicitly
      Member fourth = rebalanceMember(group, "m" + seq++, 1);
      List<Member> four = new ArrayList<>(three);
      four.add(fourth);
      require(await(() -> balanced(four), 120_000, 20), "4 members hold all 6 partitions");
      Thread.sleep(1_000);
      fourth.stop = true;
      long t0 = System.nanoTime();
      ok(send("DELETE", fourth.base, V2, null, 10_000), "delete " + fourth.name);
      long t1 = await(() -> balanced(three), 120_000, 10);
      require(t1, "3 members hold all 6 partitions after the 4th was deleted");
      leave.add((t1 - t0) / 1_000_000);
      fourth.stopPolling();
      // (b) a new 4th stops polling
      Member silentOne = rebalanceMember(group, "m" + seq++, 1);
      List<Member> four2 = new ArrayList<>(three);
      four2.add(silentOne);
      require(await(() -> balanced(four2), 120_000, 20), "4 members hold all 6 partitions again");
      Thread.sleep(1_000);
      silentOne.stopPolling(); // its last poll (timeout=200) has returned
      long s0 = silentOne.lastPollEndNanos;
      long s1 = await(() -> balanced(three), 120_000, 10);
      require(s1, "3 members hold all 6 partitions after the 4th stopped polling");
      silent.add((s1 - s0) / 1_000_000);
      silentOne.delete();
      System.out.printf("rebalance trial %d: DELETE of the 4th -> 3 hold all 6 after %d ms; 4th stops polling -> "
          + "after %d ms%n", trial, leave.get(leave.size() - 1), silent.get(silent.size() - 1));
    }
    for (Member m : three) {
      m.stopPolling();
      m.delete();
    }
    System.out.println("RESULT tributary rebalance, 4 -> 3 members, member deleted (leaves at once): " + stats(leave));
    System.out.println("RESULT tributary rebalance, 4 -> 3 members, member stops polling (session.timeout.ms 6000): "
        + stats(silent));
  }

  static int isrFull(int broker, String t) {
    try {
      HttpResponse<String> r = send("GET", url(broker) + "/v3/clusters/" + cid + "/topics/" + t + "/partitions",
          null, null, 2_000);
      if (r.statusCode() != 200) {
        return -1;
      }
      Matcher m = Pattern.compile("\"isr_ids\":\\[([0-9,]*)\\]").matcher(r.body());
      int parts = 0;
      int full = 0;
      while (m.find()) {
        parts++;
        if (m.group(1).split(",").length == 3) {
          full++;
        }
      }
      return parts > 0 && parts == full ? 1 : 0;
    } catch (Exception e) {
      return -1;
    }
  }

  static void coordinatorFailover(int trials) throws Exception {
    List<Long> commitMs = new ArrayList<>();
    List<Long> heldMs = new ArrayList<>();
    for (int trial = 1; trial <= trials; trial++) {
      String group = "gb-coordinator-" + System.currentTimeMillis();
      List<Member> members = new ArrayList<>();
      for (int b = 1; b <= 3; b++) {
        members.add(rebalanceMember(group, "c" + b, b));
      }
      require(await(() -> balanced(members), 120_000, 20), "3 members hold all 6 partitions");
      Thread.sleep(1_000);
      String g = ok(send("GET", url(1) + "/v3/clusters/" + cid + "/consumer-groups/" + group, null, null, 5_000),
          "describe group");
      int coordinator = Integer.parseInt(field(g, "coordinator_id"));
      List<Member> survivors = new ArrayList<>();
      List<Member> doomed = new ArrayList<>();
      for (Member m : members) {
        (m.broker == coordinator ? doomed : survivors).add(m);
      }
      Member committer = survivors.get(0);
      ok(send("POST", committer.base + "/offsets", V2, null, 5_000), "commit before the kill");
      long pid = Long.parseLong(java.nio.file.Files.readString(
          java.nio.file.Path.of(dataDir, "broker-" + coordinator + ".pid")).trim());
      ProcessHandle broker = ProcessHandle.of(pid).orElseThrow();
      long t0 = System.nanoTime(); // the clock starts just before SIGKILL
      broker.destroyForcibly();
      for (Member m : doomed) {
        m.stop = true;
      }
      AtomicLong commitAt = new AtomicLong(-1);
      Thread committing = new Thread(() -> {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
          try {
            if (send("POST", committer.base + "/offsets", V2, null, 2_000).statusCode() == 200) {
              commitAt.set(System.nanoTime());
              return;
            }
          } catch (Exception ignored) {
            // retry
          }
          try {
            Thread.sleep(20);
          } catch (InterruptedException e) {
            return;
          }
        }
      });
      committing.start();
      long held = await(() -> balanced(survivors), 120_000, 10);
      committing.join();
      require(commitAt.get(), "a surviving member's commit succeeds");
      require(held, "the surviving members hold all 6 partitions");
      commitMs.add((commitAt.get() - t0) / 1_000_000);
      heldMs.add((held - t0) / 1_000_000);
      broker.onExit().get(10, TimeUnit.SECONDS);
      String now = ok(send("GET", url(committer.broker) + "/v3/clusters/" + cid + "/consumer-groups/" + group,
          null, null, 5_000), "describe group");
      System.out.printf("coordinator trial %d: SIGKILL of coordinator broker %d (its member %s died with it); "
              + "commit by %s on broker %d ok after %d ms; %d surviving members hold all 6 after %d ms; "
              + "new coordinator %s%n",
          trial, coordinator, doomed.get(0).name, committer.name, committer.broker,
          commitMs.get(commitMs.size() - 1), survivors.size(), heldMs.get(heldMs.size() - 1),
          field(now, "coordinator_id"));
      for (Member m : survivors) {
        m.stopPolling();
        m.delete();
      }
      for (Member m : doomed) {
        m.stopPolling();
      }
      Process p = new ProcessBuilder(launcher, "start", Integer.toString(coordinator), "--data", dataDir)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
      if (p.waitFor() != 0) {
        throw new IllegalStateException("could not restart broker " + coordinator);
      }
      int other = coordinator % 3 + 1;
      require(await(() -> isrFull(other, topic) == 1 && isrFull(other, "__consumer_offsets") == 1, 120_000, 200),
          "broker " + coordinator + " is back in every ISR");
    }
    System.out.println("RESULT tributary coordinator SIGKILL, a surviving member's commit succeeds again: "
        + stats(commitMs));
    System.out.println("RESULT tributary coordinator SIGKILL, the surviving members hold all 6 partitions: "
        + stats(heldMs));
    System.out.println("NOTE tributary: a REST consumer instance lives in its broker, so the member on the killed "
        + "coordinator broker died with it; its partitions move to the 2 survivors once its session (6 s) expires "
        + "at the new coordinator. (Kafka's clients survive the broker.)");
  }

  public static void main(String[] args) throws Exception {
    portBase = Integer.parseInt(args[0]);
    long n = Long.parseLong(args[1]);
    int trials = Integer.parseInt(args[2]);
    dataDir = args[3];
    launcher = args[4];
    topic = args.length > 5 ? args[5] : "gb";
    partitions = args.length > 6 ? Integer.parseInt(args[6]) : 6;
    recordSize = args.length > 7 ? Integer.parseInt(args[7]) : 100;
    cid = field(ok(send("GET", url(1) + "/v3/clusters", null, null, 5_000), "clusters"), "cluster_id");
    groupConsume(n);
    rebalance(trials);
    coordinatorFailover(trials);
  }
}
