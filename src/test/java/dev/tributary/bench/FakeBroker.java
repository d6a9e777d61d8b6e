package dev.tributary.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * An in-memory stand-in for the broker's REST API, just enough for the generator: cluster id, topic
 * creation, produce to a partition, offsets, and fetch. Listens on an ephemeral loopback port.
 */
final class FakeBroker implements AutoCloseable {
  private static final Pattern PRODUCE = Pattern.compile("/topics/([^/]+)/partitions/(\\d+)");
  private static final Pattern OFFSETS =
      Pattern.compile("/topics/([^/]+)/partitions/(\\d+)/offsets");
  private static final Pattern PARTITIONS =
      Pattern.compile("/v3/clusters/fake-1/topics/([^/]+)/partitions");
  private static final Pattern FETCH = Pattern.compile("/topics/([^/]+)/partitions/(\\d+)/records");

  final HttpServer server;
  final Map<Integer, List<String>> values = new ConcurrentHashMap<>();
  final AtomicInteger produceRequests = new AtomicInteger();
  final AtomicInteger inFlight = new AtomicInteger();
  final AtomicInteger maxInFlight = new AtomicInteger();
  final AtomicLong createdPartitions = new AtomicLong(-1);
  final List<String> acksSeen = new ArrayList<>();
  final List<String> contentTypes = new ArrayList<>();

  /** Every n-th produce request answers with an error_code (0 = never). */
  volatile int failEvery;

  /** From this produce request on (counting from 1), every one answers 503 (0 = never). */
  volatile int failFrom;

  /** Other brokers this one's metadata names, by id → port (this broker is id 1). */
  final Map<Integer, Integer> otherBrokers = new ConcurrentHashMap<>();

  /** Leader ids the next partition lookups name for every partition; then this broker (1). */
  final java.util.Queue<Integer> leaderAnswers = new java.util.concurrent.ConcurrentLinkedQueue<>();

  /** When set, every fetch is refused with this status and a JSON error naming the topic. */
  volatile int refuseFetchesWith;

  FakeBroker() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(16));
    server.createContext("/", this::handle);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + port();
  }

  int port() {
    return server.getAddress().getPort();
  }

  private static String brokerJson(int id, int port) {
    return "{\"broker_id\":" + id + ",\"host\":\"127.0.0.1\",\"port\":" + port + "}";
  }

  private void handle(HttpExchange ex) throws IOException {
    String path = ex.getRequestURI().getPath();
    String query = ex.getRequestURI().getRawQuery();
    Matcher m;
    if (path.equals("/v3/clusters")) {
      reply(ex, 200, "{\"data\":[{\"cluster_id\":\"fake-1\"}]}");
    } else if (path.equals("/v3/clusters/fake-1/topics") && ex.getRequestMethod().equals("POST")) {
      JsonNode req = Responses.JSON.readTree(ex.getRequestBody().readAllBytes());
      createdPartitions.set(req.path("partitions_count").asLong());
      for (int p = 0; p < req.path("partitions_count").asInt(); p++) {
        values.putIfAbsent(p, new ArrayList<>());
      }
      reply(ex, 201, "{\"topic_name\":\"" + req.path("topic_name").asString() + "\"}");
    } else if (path.equals("/v3/clusters/fake-1/brokers")) {
      StringBuilder data = new StringBuilder("{\"data\":[").append(brokerJson(1, port()));
      otherBrokers.forEach((id, port) -> data.append(',').append(brokerJson(id, port)));
      reply(ex, 200, data.append("]}").toString());
    } else if ((m = PARTITIONS.matcher(path)).matches()) {
      Integer named = leaderAnswers.poll();
      int leader = named == null ? 1 : named;
      StringBuilder data = new StringBuilder("{\"data\":[");
      for (int p = 0; p < values.size(); p++) {
        data.append(p == 0 ? "" : ",")
            .append("{\"partition_id\":")
            .append(p)
            .append(",\"leader_id\":")
            .append(leader)
            .append('}');
      }
      reply(ex, 200, data.append("]}").toString());
    } else if ((m = OFFSETS.matcher(path)).matches()) {
      List<String> log = values.get(Integer.parseInt(m.group(2)));
      if (log == null) {
        reply(ex, 404, "{\"error_code\":40403,\"message\":\"partition not found\"}");
      } else {
        synchronized (log) {
          reply(ex, 200, "{\"beginning_offset\":0,\"end_offset\":" + log.size() + "}");
        }
      }
    } else if ((m = FETCH.matcher(path)).matches()) {
      fetch(ex, Integer.parseInt(m.group(2)), query);
    } else if ((m = PRODUCE.matcher(path)).matches()) {
      produce(ex, Integer.parseInt(m.group(2)), query);
    } else {
      reply(ex, 404, "{\"error_code\":404,\"message\":\"no route\"}");
    }
  }

  private void produce(HttpExchange ex, int partition, String query) throws IOException {
    int now = inFlight.incrementAndGet();
    maxInFlight.accumulateAndGet(now, Math::max);
    // A request stops counting as in flight before its answer is sent: the client frees its slot
    // only once the answer arrives, so its next request cannot be counted beside this one.
    boolean counted = true;
    try {
      int n = produceRequests.incrementAndGet();
      synchronized (acksSeen) {
        acksSeen.add(query);
        contentTypes.add(ex.getRequestHeaders().getFirst("Content-Type"));
      }
      JsonNode records =
          Responses.JSON.readTree(ex.getRequestBody().readAllBytes()).path("records");
      if (failFrom > 0 && n >= failFrom) {
        inFlight.decrementAndGet();
        counted = false;
        reply(ex, 503, "{\"error_code\":50302,\"message\":\"no leader\"}");
        return;
      }
      Thread.sleep(2); // let requests overlap so the window is exercised
      List<String> log = values.get(partition);
      StringBuilder sb = new StringBuilder("{\"offsets\":[");
      boolean fail = failEvery > 0 && n % failEvery == 0;
      synchronized (log) {
        for (int i = 0; i < records.size(); i++) {
          if (i > 0) {
            sb.append(',');
          }
          if (fail) {
            sb.append("{\"partition\":")
                .append(partition)
                .append(",\"offset\":-1,\"error_code\":50003,")
                .append("\"error\":\"injected\"}");
          } else {
            log.add(records.get(i).path("value").asString());
            sb.append("{\"partition\":")
                .append(partition)
                .append(",\"offset\":")
                .append(log.size() - 1)
                .append(",\"error_code\":null,\"error\":null}");
          }
        }
      }
      inFlight.decrementAndGet();
      counted = false;
      reply(ex, 200, sb.append("]}").toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (counted) {
        inFlight.decrementAndGet();
      }
    }
  }

  private void fetch(HttpExchange ex, int partition, String query) throws IOException {
    if (refuseFetchesWith != 0) {
      reply(
          ex,
          refuseFetchesWith,
          "{\"error_code\":"
              + refuseFetchesWith
              + "01,\"message\":\"Not authorized to read topic bench\"}");
      return;
    }
    long offset = Long.parseLong(query.replaceAll(".*offset=(\\d+).*", "$1"));
    long maxBytes = Long.parseLong(query.replaceAll(".*max_bytes=(\\d+).*", "$1"));
    List<String> log = values.get(partition);
    StringBuilder sb = new StringBuilder("[");
    synchronized (log) {
      long bytes = 0;
      for (long o = offset; o < log.size() && (bytes == 0 || bytes < maxBytes); o++) {
        String v = log.get((int) o);
        bytes += v.length();
        if (sb.length() > 1) {
          sb.append(',');
        }
        sb.append("{\"topic\":\"bench\",\"partition\":")
            .append(partition)
            .append(",\"offset\":")
            .append(o)
            .append(",\"timestamp\":0,\"key\":null,\"value\":\"")
            .append(v)
            .append("\",\"headers\":[]}");
      }
    }
    reply(ex, 200, sb.append(']').toString());
  }

  private static void reply(HttpExchange ex, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(status, bytes.length);
    ex.getResponseBody().write(bytes);
    ex.close();
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
