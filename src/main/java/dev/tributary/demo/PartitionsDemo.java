package dev.tributary.demo;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Keys choose partitions: the client-side murmur2 of each key predicts the partition the broker put
 * it in; records keep their order within a partition, and each partition numbers its own offsets,
 * so there is no order across partitions.
 */
final class PartitionsDemo implements Demo {
  static final String TOPIC = "demo-partitions";
  static final int PARTITIONS = 3;
  static final int KEYS = 12;
  static final int REQUESTS = 10;
  static final int PER_REQUEST = 30;

  @Override
  public String name() {
    return "partitions";
  }

  @Override
  public int steps() {
    return 4;
  }

  @Override
  public List<String> topics() {
    return List.of(TOPIC);
  }

  @Override
  public void run(DemoContext ctx) throws Exception {
    DemoCluster cluster = ctx.cluster();
    List<String> keys = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      keys.add(TOPIC + "-" + p);
    }
    ctx.highlight(keys);

    ctx.step("setup", TOPIC, PARTITIONS);
    cluster.recreateTopic(TOPIC, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
    for (DemoCluster.PartitionInfo p : cluster.partitions(TOPIC)) {
      ctx.result("setup.partition", p.partition(), p.leader(), p.replicas());
    }
    ctx.look("setup.look", TOPIC);

    ctx.step("keys", KEYS, REQUESTS * PER_REQUEST);
    Map<String, Integer> predicted = new TreeMap<>(DemoCluster::compareNatural);
    for (int k = 1; k <= KEYS; k++) {
      String key = "user-" + k;
      predicted.put(key, Murmur2.partition(key.getBytes(StandardCharsets.UTF_8), PARTITIONS));
    }
    Map<String, Integer> sentPerKey = new HashMap<>();
    Map<String, java.util.Set<Integer>> landed = new HashMap<>();
    int sent = 0;
    int matched = 0;
    for (int r = 0; r < REQUESTS; r++) {
      List<Map.Entry<String, String>> batch = new ArrayList<>();
      for (int i = 0; i < PER_REQUEST; i++) {
        String key = "user-" + (1 + (sent + i) * 7 % KEYS);
        int seq = sentPerKey.merge(key, 1, Integer::sum);
        batch.add(Map.entry(key, key + " #" + seq + " (sent " + (sent + i + 1) + ")"));
      }
      List<DemoCluster.Ack> acks = cluster.produceKeyed(TOPIC, batch, "all");
      for (int i = 0; i < batch.size(); i++) {
        DemoCluster.Ack ack = acks.get(i);
        String key = batch.get(i).getKey();
        if (!ack.ok()) {
          throw new DemoException("produce failed for key " + key + ": " + ack.error());
        }
        landed.computeIfAbsent(key, x -> new java.util.TreeSet<>()).add(ack.partition());
        if (ack.partition() == predicted.get(key)) {
          matched++;
        }
      }
      sent += batch.size();
    }
    ctx.action("keys.sent", sent, REQUESTS, KEYS);
    for (Map.Entry<String, Integer> e : predicted.entrySet()) {
      String key = e.getKey();
      int hash = Murmur2.hash(key.getBytes(StandardCharsets.UTF_8));
      ctx.result(
          "keys.row",
          key,
          String.valueOf(hash),
          e.getValue(),
          landed.getOrDefault(key, java.util.Set.of()));
    }
    ctx.look("keys.look", TOPIC);
    ctx.check(matched == sent, "keys.claim", matched, sent);

    ctx.step("order");
    int inOrder = 0;
    int total = 0;
    int keysInOnePartition = 0;
    Map<Integer, List<DemoCluster.Record>> byPartition = new LinkedHashMap<>();
    Map<String, java.util.Set<Integer>> partitionsOfKey = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      List<DemoCluster.Record> records = cluster.readAll(TOPIC, p);
      byPartition.put(p, records);
      Map<String, Integer> lastSeq = new HashMap<>();
      for (DemoCluster.Record rec : records) {
        total++;
        int seq = sequence(rec.value());
        Integer before = lastSeq.put(rec.key(), seq);
        if (before == null ? seq == 1 : seq == before + 1) {
          inOrder++;
        }
        partitionsOfKey.computeIfAbsent(rec.key(), x -> new java.util.TreeSet<>()).add(p);
      }
      ctx.result("order.partition", p, records.size(), lastSeq.size(), firstValues(records, 3));
    }
    for (java.util.Set<Integer> ps : partitionsOfKey.values()) {
      if (ps.size() == 1) {
        keysInOnePartition++;
      }
    }
    ctx.look("order.look");
    ctx.check(total == sent && inOrder == total, "order.claim", inOrder, total, sent);
    ctx.check(
        keysInOnePartition == KEYS && partitionsOfKey.size() == KEYS,
        "order.claim.keys",
        keysInOnePartition,
        KEYS);

    ctx.step("across");
    int contiguous = 0;
    List<String> atZero = new ArrayList<>();
    for (Map.Entry<Integer, List<DemoCluster.Record>> e : byPartition.entrySet()) {
      List<DemoCluster.Record> records = e.getValue();
      boolean ok = true;
      for (int i = 0; i < records.size(); i++) {
        ok &= records.get(i).offset() == i;
      }
      if (ok) {
        contiguous++;
      }
      if (!records.isEmpty()) {
        atZero.add(TOPIC + "-" + e.getKey() + " → " + records.get(0).value());
        DemoCluster.Record last = records.get(records.size() - 1);
        ctx.result("across.partition", e.getKey(), last.offset(), sentIndex(last.value()));
      }
    }
    ctx.result("across.zero", String.join("; ", atZero));
    ctx.look("across.look");
    ctx.check(contiguous == PARTITIONS, "across.claim", contiguous, PARTITIONS);
  }

  /** {@code user-7 #3 (sent 57)} → 3. */
  static int sequence(String value) {
    int hash = value.indexOf('#');
    int space = value.indexOf(' ', hash);
    return Integer.parseInt(value.substring(hash + 1, space));
  }

  /** {@code user-7 #3 (sent 57)} → 57. */
  static int sentIndex(String value) {
    int at = value.indexOf("(sent ");
    return Integer.parseInt(value.substring(at + 6, value.indexOf(')', at)));
  }

  private static String firstValues(List<DemoCluster.Record> records, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < Math.min(n, records.size()); i++) {
      DemoCluster.Record r = records.get(i);
      out.add(r.offset() + ": " + r.value());
    }
    return String.join(", ", out) + (records.size() > n ? ", ..." : "");
  }
}
