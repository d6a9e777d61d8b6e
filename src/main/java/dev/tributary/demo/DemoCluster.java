package dev.tributary.demo;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The cluster as the demos see it: the public REST API (docs/api.md) and the dashboard's endpoints,
 * over HTTP only. Any broker answers any request; a call goes to the first broker that answers (the
 * bootstrap URL, then the others the cluster lists), so a demo that kills a broker carries on.
 */
public final class DemoCluster {
  static final String JSON_V2 = "application/vnd.kafka.json.v2+json";
  static final String BINARY_V2 = "application/vnd.kafka.binary.v2+json";
  static final String V2 = "application/vnd.kafka.v2+json";
  static final String APPLICATION_JSON = "application/json";

  /** A registered broker: its id, base URL, and whether it is fenced. */
  public record Broker(int id, URI url, boolean fenced) {}

  /** A partition as the metadata has it. */
  public record PartitionInfo(
      int partition, int leader, int leaderEpoch, List<Integer> replicas, List<Integer> isr) {
    /** The out-of-sync replicas: AR minus ISR, in replica order. */
    public List<Integer> osr() {
      return replicas.stream().filter(r -> !isr.contains(r)).toList();
    }
  }

  /** A partition's offsets: log start, the high watermark (end_offset) and the leader's LEO. */
  public record Offsets(long logStartOffset, long highWatermark, long logEndOffset) {}

  /** One replica's progress as the partition's leader sees it (-1: unknown). */
  public record Replica(
      int brokerId, boolean leader, boolean inSync, long logEndOffset, long lag) {}

  /** What a produce answered for one record: its partition and offset, or its error. */
  public record Ack(int partition, long offset, String error) {
    public boolean ok() {
      return error == null;
    }
  }

  /** A record as read back: offset, key and value as UTF-8 text (null when absent). */
  public record Record(int partition, long offset, String key, String value) {}

  /** One stateless read: the records, and the high watermark the broker read before them. */
  public record Fetch(List<Record> records, long highWatermark) {}

  private final DemoHttp http;
  private final URI bootstrap;
  private volatile List<URI> known;
  private String clusterId;

  DemoCluster(DemoHttp http, URI bootstrap) {
    this.http = http;
    this.bootstrap = bootstrap;
    this.known = List.of(bootstrap);
  }

  DemoHttp http() {
    return http;
  }

  public String clusterId() throws IOException, InterruptedException {
    if (clusterId == null) {
      DemoHttp.Response r = call("GET", "/v3/clusters", null, null, APPLICATION_JSON);
      clusterId = r.json().path("data").path(0).path("cluster_id").asString();
      if (clusterId == null || clusterId.isEmpty()) {
        throw new DemoException("no cluster_id in GET /v3/clusters: " + r.brief());
      }
    }
    return clusterId;
  }

  private String v3() throws IOException, InterruptedException {
    return "/v3/clusters/" + enc(clusterId());
  }

  /** Every registered broker, fenced ones included, by id. */
  public List<Broker> brokers() throws IOException, InterruptedException {
    JsonNode data =
        call("GET", v3() + "/brokers", null, null, APPLICATION_JSON).json().path("data");
    List<Broker> brokers = new ArrayList<>();
    for (JsonNode b : data) {
      brokers.add(
          new Broker(
              b.path("broker_id").asInt(),
              URI.create("http://" + b.path("host").asString() + ":" + b.path("port").asInt()),
              "fenced".equals(b.path("state").asString())));
    }
    brokers.sort(java.util.Comparator.comparingInt(Broker::id));
    List<URI> urls = new ArrayList<>(List.of(bootstrap));
    brokers.forEach(b -> urls.add(b.url()));
    known = urls.stream().distinct().toList();
    return brokers;
  }

  /** The active controller's broker id (-1 during an election). */
  public int controllerId() throws IOException, InterruptedException {
    return call("GET", v3(), null, null, APPLICATION_JSON).json().path("controller_id").asInt(-1);
  }

  /**
   * Creates {@code topic} afresh: deletes it first if an earlier run left it, then creates it and
   * waits until every partition has a leader and its full ISR.
   */
  public void recreateTopic(
      String topic, int partitions, int replicationFactor, Map<String, String> configs)
      throws IOException, InterruptedException {
    deleteTopicIfExists(topic);
    ObjectNode body = DemoHttp.JSON.createObjectNode();
    body.put("topic_name", topic).put("partitions_count", partitions);
    body.put("replication_factor", replicationFactor);
    ArrayNode list = body.putArray("configs");
    configs.forEach((k, v) -> list.addObject().put("name", k).put("value", v));
    Waits.until(
        "topic " + topic + " created",
        Duration.ofSeconds(30),
        () -> {
          DemoHttp.Response r =
              call("POST", v3() + "/topics", APPLICATION_JSON, body.toString(), APPLICATION_JSON);
          if (r.status() == 409) {
            return false; // the deletion is still going through
          }
          if (!r.ok()) {
            throw new DemoException("could not create topic " + topic + ": " + r.brief());
          }
          return true;
        });
    awaitFullIsr(topic, Duration.ofSeconds(60));
  }

  /** Deletes {@code topic} if it exists (an earlier run's). */
  public void deleteTopicIfExists(String topic) throws IOException, InterruptedException {
    DemoHttp.Response existing =
        call("GET", v3() + "/topics/" + enc(topic), null, null, APPLICATION_JSON);
    if (existing.ok()) {
      DemoHttp.Response deleted =
          call("DELETE", v3() + "/topics/" + enc(topic), null, null, APPLICATION_JSON);
      if (!deleted.ok() && deleted.status() != 404) {
        throw new DemoException("could not delete topic " + topic + ": " + deleted.brief());
      }
    }
  }

  /** Waits until every partition of {@code topic} has a leader and every replica in its ISR. */
  public void awaitFullIsr(String topic, Duration timeout) throws InterruptedException {
    Waits.until(
        "every replica of " + topic + " in its ISR",
        timeout,
        () -> {
          List<PartitionInfo> parts = partitions(topic);
          return !parts.isEmpty()
              && parts.stream()
                  .allMatch(p -> p.leader() >= 0 && p.isr().size() == p.replicas().size());
        });
  }

  public List<PartitionInfo> partitions(String topic) throws IOException, InterruptedException {
    DemoHttp.Response r =
        call("GET", v3() + "/topics/" + enc(topic) + "/partitions", null, null, APPLICATION_JSON);
    if (!r.ok()) {
      throw new DemoException("partitions of " + topic + ": " + r.brief());
    }
    List<PartitionInfo> parts = new ArrayList<>();
    for (JsonNode p : r.json().path("data")) {
      parts.add(
          new PartitionInfo(
              p.path("partition_id").asInt(),
              p.path("leader_id").asInt(-1),
              p.path("leader_epoch").asInt(-1),
              ints(p.path("replica_ids")),
              ints(p.path("isr_ids"))));
    }
    parts.sort(java.util.Comparator.comparingInt(PartitionInfo::partition));
    return parts;
  }

  public PartitionInfo partition(String topic, int partition)
      throws IOException, InterruptedException {
    return partitions(topic).stream()
        .filter(p -> p.partition() == partition)
        .findFirst()
        .orElseThrow(() -> new DemoException("no partition " + topic + "-" + partition));
  }

  /**
   * Produces keyed records (keys and values as UTF-8 bytes, in the binary format, so a key's stored
   * bytes are exactly its text, as a Kafka client's StringSerializer writes them) and lets the
   * broker choose each partition.
   */
  public List<Ack> produceKeyed(String topic, List<Map.Entry<String, String>> records, String acks)
      throws IOException, InterruptedException {
    ObjectNode body = DemoHttp.JSON.createObjectNode();
    ArrayNode list = body.putArray("records");
    for (Map.Entry<String, String> r : records) {
      list.addObject().put("key", b64(r.getKey())).put("value", b64(r.getValue()));
    }
    return produce("/topics/" + enc(topic) + "?acks=" + acks, BINARY_V2, body);
  }

  /** Produces JSON values to one partition. */
  public List<Ack> produceTo(String topic, int partition, List<?> values, String acks)
      throws IOException, InterruptedException {
    ObjectNode body = DemoHttp.JSON.createObjectNode();
    ArrayNode list = body.putArray("records");
    for (Object v : values) {
      list.addObject().set("value", DemoHttp.JSON.valueToTree(v));
    }
    return produce(
        "/topics/" + enc(topic) + "/partitions/" + partition + "?acks=" + acks, JSON_V2, body);
  }

  private List<Ack> produce(String path, String contentType, ObjectNode body)
      throws IOException, InterruptedException {
    DemoHttp.Response r = call("POST", path, contentType, body.toString(), V2);
    if (!r.ok()) {
      throw new DemoException("produce " + path + ": " + r.brief());
    }
    List<Ack> acks = new ArrayList<>();
    for (JsonNode o : r.json().path("offsets")) {
      acks.add(
          new Ack(
              o.path("partition").asInt(-1),
              o.path("offset").isNull() ? -1 : o.path("offset").asLong(),
              o.path("error_code").isNull() ? null : o.path("error").asString()));
    }
    return acks;
  }

  /**
   * Reads committed records of one partition from {@code offset} (waiting up to {@code timeoutMs}).
   */
  public Fetch records(String topic, int partition, long offset, long timeoutMs)
      throws IOException, InterruptedException {
    String path =
        "/topics/"
            + enc(topic)
            + "/partitions/"
            + partition
            + "/records?offset="
            + offset
            + "&timeout="
            + timeoutMs;
    DemoHttp.Response r = call("GET", path, null, null, BINARY_V2);
    if (!r.ok()) {
      throw new DemoException("read " + topic + "-" + partition + ": " + r.brief());
    }
    List<Record> records = new ArrayList<>();
    for (JsonNode rec : r.json()) {
      records.add(
          new Record(
              rec.path("partition").asInt(),
              rec.path("offset").asLong(),
              unb64(rec.path("key")),
              unb64(rec.path("value"))));
    }
    long hw = r.headers().first("X-Tributary-High-Watermark").map(Long::parseLong).orElse(-1L);
    return new Fetch(records, hw);
  }

  /** Every committed record of one partition, from its start. */
  public List<Record> readAll(String topic, int partition)
      throws IOException, InterruptedException {
    List<Record> all = new ArrayList<>();
    long next = offsets(topic, partition).logStartOffset();
    long end = offsets(topic, partition).highWatermark();
    while (next < end) {
      List<Record> batch = records(topic, partition, next, 0).records();
      if (batch.isEmpty()) {
        break;
      }
      for (Record rec : batch) {
        if (rec.offset() >= next) {
          all.add(rec);
          next = rec.offset() + 1;
        }
      }
    }
    return all;
  }

  public Offsets offsets(String topic, int partition) throws IOException, InterruptedException {
    DemoHttp.Response r =
        call(
            "GET",
            "/topics/" + enc(topic) + "/partitions/" + partition + "/offsets",
            null,
            null,
            V2);
    if (!r.ok()) {
      throw new DemoException("offsets of " + topic + "-" + partition + ": " + r.brief());
    }
    JsonNode o = r.json();
    return new Offsets(
        o.path("beginning_offset").asLong(),
        o.path("end_offset").asLong(),
        o.path("log_end_offset").asLong());
  }

  /** Each replica's progress as the partition's leader sees it, by broker id. */
  public Map<Integer, Replica> replicas(String topic, int partition)
      throws IOException, InterruptedException {
    DemoHttp.Response r =
        call(
            "GET",
            v3() + "/topics/" + enc(topic) + "/partitions/" + partition + "/replicas",
            null,
            null,
            APPLICATION_JSON);
    if (!r.ok()) {
      throw new DemoException("replicas of " + topic + "-" + partition + ": " + r.brief());
    }
    Map<Integer, Replica> replicas = new TreeMap<>();
    for (JsonNode rep : r.json().path("data")) {
      int id = rep.path("broker_id").asInt();
      replicas.put(
          id,
          new Replica(
              id,
              rep.path("is_leader").asBoolean(),
              rep.path("is_in_sync").asBoolean(),
              rep.path("log_end_offset").isNumber() ? rep.path("log_end_offset").asLong() : -1,
              rep.path("lag").isNumber() ? rep.path("lag").asLong() : -1));
    }
    return replicas;
  }

  /** {@code GET /dashboard/state}: the cluster as the dashboard shows it. */
  public JsonNode dashboardState() throws IOException, InterruptedException {
    DemoHttp.Response r = call("GET", "/dashboard/state", null, null, APPLICATION_JSON);
    if (!r.ok()) {
      throw new DemoException("GET /dashboard/state: " + r.brief());
    }
    return r.json();
  }

  /**
   * Stops broker {@code id}'s replica fetcher for {@code seconds} (the dashboard's button); a pause
   * of 1 s ends a longer one early.
   */
  public void pauseFetching(int id, int seconds) throws IOException, InterruptedException {
    DemoHttp.Response r =
        call(
            "POST",
            "/dashboard/actions/brokers/" + id + "/pause-fetching",
            APPLICATION_JSON,
            "{\"seconds\":" + seconds + "}",
            APPLICATION_JSON);
    if (!r.ok()) {
      throw new DemoException("pause-fetching of broker " + id + ": " + r.brief());
    }
  }

  /** Traces one record's life ({@code POST /dashboard/actions/topics/{t}/trace}). */
  public JsonNode trace(String topic, String acks, int partition)
      throws IOException, InterruptedException {
    DemoHttp.Response r =
        call(
            "POST",
            "/dashboard/actions/topics/" + enc(topic) + "/trace",
            APPLICATION_JSON,
            "{\"acks\":\"" + acks + "\",\"partition\":" + partition + "}",
            APPLICATION_JSON);
    if (!r.ok()) {
      throw new DemoException("trace of " + topic + "-" + partition + ": " + r.brief());
    }
    return r.json();
  }

  /**
   * Sends {@code body} to {@code POST /dashboard/actions/demo} on every broker that answers (each
   * keeps its own copy); a broker that is down is skipped. Returns how many took it.
   */
  int tellEveryBroker(String body) {
    int told = 0;
    for (URI url : known) {
      try {
        DemoHttp.Response r =
            http.send(
                "POST",
                URI.create(url + "/dashboard/actions/demo"),
                APPLICATION_JSON,
                body,
                APPLICATION_JSON,
                Duration.ofSeconds(2));
        if (r.ok()) {
          told++;
        }
      } catch (IOException e) {
        // down or frozen: its banner expires by itself
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return told;
      }
    }
    return told;
  }

  /**
   * One call to the first broker that answers: the bootstrap URL, then the others the cluster
   * listed last. An HTTP error is an answer; only a refused or timed-out connection moves on.
   */
  DemoHttp.Response call(String method, String path, String contentType, String body, String accept)
      throws IOException, InterruptedException {
    IOException last = null;
    for (URI url : known) {
      try {
        return http.send(
            method, URI.create(url + path), contentType, body, accept, DemoHttp.DEFAULT_TIMEOUT);
      } catch (ConnectException | HttpTimeoutException e) {
        last = e;
      }
    }
    throw new DemoException(
        "no broker answered " + method + " " + path + " (tried " + known + ")", last);
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private static String unb64(JsonNode n) {
    return n == null || n.isNull() || n.isMissingNode()
        ? null
        : new String(Base64.getDecoder().decode(n.asString()), StandardCharsets.UTF_8);
  }

  private static List<Integer> ints(JsonNode array) {
    List<Integer> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asInt()));
    return out;
  }

  /** Orders names with numbers as people do: user-2 before user-10. */
  static int compareNatural(String a, String b) {
    String pa = a.replaceAll("\\d+$", "");
    String pb = b.replaceAll("\\d+$", "");
    if (!pa.equals(pb) || pa.length() == a.length() || pb.length() == b.length()) {
      return a.compareTo(b);
    }
    return Long.compare(
        Long.parseLong(a.substring(pa.length())), Long.parseLong(b.substring(pb.length())));
  }
}
