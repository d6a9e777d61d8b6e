package dev.tributary.e2e;

import dev.tributary.fuzz.HostileRequests;
import dev.tributary.fuzz.HostileRequests.Request;
import dev.tributary.fuzz.RawAnswer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The seeded fuzz of {@link HostileRequests} on a whole cluster while a {@link NetworkNemesis} cuts
 * its links: one thread sends the generated requests (both streams, mixed) each to a random broker
 * at its own address, raw (some targets hold escapes {@code java.net.URI} refuses), one per
 * connection, each given {@link #TIMEOUT} in all. No answer (refused, reset, timed out) is allowed:
 * links are cut and brokers killed on purpose. Every answer that arrives is checked:
 *
 * <ul>
 *   <li>no stack trace in any body, and no exception or Java class name in an error's;
 *   <li>never 500; a 504 may be anything (a gateway's timeout);
 *   <li>every other status from 400 up (503 included) in the API's error shape: a JSON object with
 *       an integer {@code error_code} and a string {@code message}.
 * </ul>
 *
 * Violations are collected with the seed and the request, for the test to fail on at the end.
 */
final class NetworkFuzz implements AutoCloseable {
  /** How long one request may take, connecting, sending and reading included. */
  static final Duration TIMEOUT = Duration.ofSeconds(2);

  /** Between two requests: enough to leave the load most of each broker. */
  private static final long PAUSE_MS = 10;

  private static final Pattern STACK_TRACE =
      Pattern.compile("(?m)^\\s*at [\\w$.]+\\(|\\bat (dev|java|jdk|org|sun|tools)\\.[\\w$]+\\.");
  private static final Pattern CLASS_NAME =
      Pattern.compile(
          "\\w*Exception\\b|\\b(java|javax|jakarta|jdk|sun|dev\\.tributary|org\\.springframework"
              + "|org\\.apache|tools\\.jackson)\\.[a-z]");

  private final TestCluster cluster;
  private final long seed;
  private final HostileRequests requests;
  private final Random random;
  private final JsonMapper json = JsonMapper.builder().build();
  private final ScheduledExecutorService deadlines =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "network-fuzz-deadlines");
            t.setDaemon(true);
            return t;
          });
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final List<String> violations = new ArrayList<>();
  private final Thread thread;
  private final AtomicInteger sent = new AtomicInteger();
  private final AtomicInteger answered = new AtomicInteger();
  private final Map<Integer, Integer> statuses = new ConcurrentSkipListMap<>();

  private NetworkFuzz(TestCluster cluster, long seed, HostileRequests.Names names) {
    this.cluster = cluster;
    this.seed = seed;
    this.requests = new HostileRequests(seed, names);
    this.random = new Random(~seed); // which request to which broker
    this.thread = new Thread(this::fuzz, "network-fuzz");
    this.thread.setDaemon(true);
  }

  /** Starts fuzzing; {@link #close} stops it. */
  static NetworkFuzz start(TestCluster cluster, long seed, HostileRequests.Names names) {
    NetworkFuzz fuzz = new NetworkFuzz(cluster, seed, names);
    fuzz.thread.start();
    return fuzz;
  }

  private void fuzz() {
    try {
      fuzzUntilClosed();
    } catch (RuntimeException | Error e) {
      synchronized (violations) {
        violations.add("seed " + seed + ": the fuzz stopped: " + e);
      }
    }
  }

  private void fuzzUntilClosed() {
    while (running.get()) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(PAUSE_MS)); // pacing
      Request request = random.nextBoolean() ? requests.next() : requests.nextOnParameters();
      List<BrokerProcess> brokers = List.copyOf(cluster.all());
      BrokerProcess via = brokers.get(random.nextInt(brokers.size()));
      sent.incrementAndGet();
      Answer answer;
      try {
        answer = send(via, request);
      } catch (IOException e) {
        continue; // no answer: a cut link, a dead or paused broker, a reset
      }
      answered.incrementAndGet();
      statuses.merge(answer.status(), 1, Integer::sum);
      String problem = problem(answer);
      if (problem != null) {
        synchronized (violations) {
          violations.add(
              String.format(
                  "seed %d, broker %d: %s -> %d %s: %s",
                  seed,
                  via.brokerId(),
                  request,
                  answer.status(),
                  HostileRequests.abbreviate(answer.body()),
                  problem));
        }
      }
    }
  }

  /** What is wrong with {@code answer}, or null. */
  private String problem(Answer answer) {
    if (STACK_TRACE.matcher(answer.body()).find()) {
      return "a stack trace in the body";
    }
    int status = answer.status();
    if (status == 500) {
      return "500";
    }
    if (status < 400 || status == 504) {
      return null;
    }
    if (CLASS_NAME.matcher(answer.body()).find()) {
      return "an exception or class name in the error";
    }
    JsonNode error;
    try {
      error = json.readTree(answer.body());
    } catch (RuntimeException e) {
      return "an error that is not JSON";
    }
    if (error == null
        || !error.isObject()
        || !error.path("error_code").isInt()
        || !error.path("message").isString()) {
      return "an error without the shape {\"error_code\": int, \"message\": string}";
    }
    return null;
  }

  /** One answer: its status and body. */
  record Answer(int status, String body) {}

  /**
   * Sends {@code request} raw to {@code via}'s address and reads the whole answer ({@code
   * Connection: close}), within {@link #TIMEOUT}: past it the socket is closed under the read or
   * the write (a write to a SIGSTOPped broker would otherwise block until TCP gives up).
   */
  private Answer send(BrokerProcess via, Request request) throws IOException {
    try (Socket socket = new Socket()) {
      ScheduledFuture<?> deadline =
          deadlines.schedule(
              () -> {
                try {
                  socket.close();
                } catch (IOException e) {
                  // closing is all this is for
                }
              },
              TIMEOUT.toMillis(),
              TimeUnit.MILLISECONDS);
      try {
        socket.connect(new InetSocketAddress(via.host(), via.port()), (int) TIMEOUT.toMillis());
        socket.setSoTimeout((int) TIMEOUT.toMillis());
        byte[] body = request.body().getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder();
        head.append(request.method()).append(' ').append(request.target()).append(" HTTP/1.1\r\n");
        head.append("Host: ").append(via.host()).append(':').append(via.port()).append("\r\n");
        head.append("Connection: close\r\n");
        if (!request.contentType().isEmpty()) {
          head.append("Content-Type: ").append(request.contentType()).append("\r\n");
        }
        if (!request.accept().isEmpty()) {
          head.append("Accept: ").append(request.accept()).append("\r\n");
        }
        if (body.length > 0 || !request.method().equals("GET")) {
          head.append("Content-Length: ").append(body.length).append("\r\n");
        }
        head.append("\r\n");
        OutputStream out = socket.getOutputStream();
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        try {
          out.write(body);
          out.flush();
        } catch (IOException e) {
          // The broker may have answered (413) and closed before taking the whole body: read on.
        }
        return read(socket.getInputStream());
      } finally {
        deadline.cancel(false);
      }
    }
  }

  private static Answer read(InputStream in) throws IOException {
    RawAnswer answer = RawAnswer.read(in);
    return new Answer(answer.status(), answer.body());
  }

  /** Stops sending and waits for the last request (bounded by its timeout). */
  @Override
  public void close() throws InterruptedException {
    running.set(false);
    thread.join(TIMEOUT.toMillis() + 5_000);
    deadlines.shutdownNow();
  }

  /** Every violation so far, in order. */
  List<String> violations() {
    synchronized (violations) {
      return List.copyOf(violations);
    }
  }

  /** One line: requests sent, answered (how many of each status), violations. */
  String summary() {
    return String.format(
        "%d requests, %d answered %s, %d violations",
        sent.get(), answered.get(), statuses, violations().size());
  }
}
