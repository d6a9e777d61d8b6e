package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.server.RequestContext;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Slowloris: hundreds of clients that trickle their headers or bodies a byte at a time must not
 * starve a normal client. Headers are read by Tomcat without a thread; bodies hold one, but at most
 * {@code tributary.max-in-flight-requests-per-client} per client and for at most {@code
 * tributary.request-body-timeout-ms} (5 s in these tests), after which they are answered 408 40801.
 */
class SlowClientsApiTest extends ApiTestSupport {
  private static final int HEADER_TRICKLERS = 300; // over 10 addresses, 30 each
  private static final int BODY_TRICKLERS = 40; // from one address: 32 in flight, 8 refused

  @Autowired InFlightLimitFilter inFlight;

  /** One slow client: its socket and what it still has to send, a byte per tick. */
  private static final class Trickler {
    final Socket socket;
    final byte[] bytes;
    int sent;
    volatile boolean failed;

    Trickler(Socket socket, String text) {
      this.socket = socket;
      this.bytes = text.getBytes(StandardCharsets.US_ASCII);
    }

    void sendNext(int count) {
      try {
        int n = Math.min(count, bytes.length - sent);
        if (n > 0) {
          socket.getOutputStream().write(bytes, sent, n);
          socket.getOutputStream().flush();
          sent += n;
        }
      } catch (IOException e) {
        failed = true; // the broker closed it: also fine
      }
    }
  }

  @Test
  void hundredsOfClientsTricklingHeadersAndBodiesDoNotStarveANormalOne() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1);
    List<Trickler> headerTricklers = new ArrayList<>();
    List<Trickler> bodyTricklers = new ArrayList<>();
    ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
    try {
      for (int i = 0; i < HEADER_TRICKLERS; i++) {
        Socket socket = RawHttp.connect("127.0.0." + (20 + i % 10), port);
        headerTricklers.add(
            new Trickler(
                socket,
                "POST /topics/"
                    + topic
                    + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
                    + "s".repeat(4_000)));
      }
      String bodyHead =
          "POST /topics/"
              + topic
              + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
              + EMBEDDED_JSON
              + "\r\nContent-Length: 10000\r\n\r\n";
      for (int i = 0; i < BODY_TRICKLERS; i++) {
        Trickler t =
            new Trickler(
                RawHttp.connect("127.0.0.30", port),
                bodyHead + "{\"records\":[{\"value\":\"" + "b".repeat(9_000));
        t.sendNext(bodyHead.length()); // headers at once, then the body a byte per tick
        bodyTricklers.add(t);
      }
      ticker.scheduleWithFixedDelay(
          () -> {
            headerTricklers.forEach(t -> t.sendNext(1));
            bodyTricklers.forEach(t -> t.sendNext(1));
          },
          50,
          50,
          TimeUnit.MILLISECONDS);

      await("the slow bodies are in flight, as many as one client may have")
          .atMost(Duration.ofSeconds(20))
          .until(() -> inFlight.inFlight(RequestContext.ANONYMOUS_PREFIX + "127.0.0.30") == 32);

      // a normal client is answered while all of them trickle
      produceJson(topic, "{\"records\":[{\"value\":\"normal\"}]}");
      assertThat(readJson(topic, 0, 0).get(0).get("value").stringValue()).isEqualTo("normal");
      assertThat(get("/actuator/health/readiness").status()).isEqualTo(200);

      // every slow body is answered: 8 at once with 429 42902, the others 408 40801 at the deadline
      List<Integer> statuses = new ArrayList<>();
      for (Trickler t : bodyTricklers) {
        statuses.add(answerStatus(t.socket));
      }
      assertThat(statuses).containsOnly(429, 408);
      assertThat(statuses.stream().filter(s -> s == 429)).hasSize(BODY_TRICKLERS - 32);
    } finally {
      ticker.shutdownNow();
      ticker.awaitTermination(5, TimeUnit.SECONDS);
      for (Trickler t : headerTricklers) {
        t.socket.close();
      }
      for (Trickler t : bodyTricklers) {
        t.socket.close();
      }
    }
    assertThat(endOffset(topic, 0)).as("only the normal record was appended").isEqualTo(1);
  }

  /** The status line of the answer on {@code socket} (its read timeout is 30 s). */
  private static int answerStatus(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    StringBuilder line = new StringBuilder();
    for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
      line.append((char) b);
    }
    return Integer.parseInt(line.toString().split(" ")[1]);
  }
}
