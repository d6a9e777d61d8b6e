package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The foundation's promise, end to end with a real process: every acknowledged record survives a
 * SIGKILL and is read back, in order, after a restart on the same data directory.
 */
class BrokerCrashRecoveryIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();
  private static final int RECORDS = 10_000;
  private static final int BATCH = 500;
  private static final Pattern OFFSET = Pattern.compile("\"offset\":(\\d+)");
  private static final Pattern VALUE = Pattern.compile("\"value\":\"([^\"]*)\"");

  @TempDir Path tmp;
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void acknowledgedRecordsSurviveSigkillAndReadBackInOrder() throws Exception {
    Path data = tmp.resolve("broker-1");
    Path log = e2e.logDir().resolve("broker-1.log");
    try (BrokerProcess broker = new BrokerProcess(data, 1, log).start()) {
      for (int start = 0; start < RECORDS; start += BATCH) {
        StringBuilder body = new StringBuilder("{\"records\":[");
        for (int i = start; i < start + BATCH; i++) {
          body.append(i == start ? "" : ",").append("{\"value\":\"record-").append(i).append("\"}");
        }
        body.append("]}");
        HttpResponse<String> response =
            http.send(
                HttpRequest.newBuilder(
                        URI.create(broker.url("/topics/crash/partitions/0?acks=all")))
                    .header("Content-Type", "application/vnd.kafka.json.v2+json")
                    .POST(HttpRequest.BodyPublishers.ofString(body.append("").toString()))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        Matcher first = OFFSET.matcher(response.body());
        assertThat(first.find()).isTrue();
        assertThat(Long.parseLong(first.group(1))).isEqualTo(start);
      }
      broker.kill();
    }

    try (BrokerProcess restarted = new BrokerProcess(data, 1, log).start()) {
      List<String> values = new ArrayList<>();
      long offset = 0;
      while (values.size() < RECORDS) {
        HttpResponse<String> response =
            http.send(
                HttpRequest.newBuilder(
                        URI.create(
                            restarted.url(
                                "/topics/crash/partitions/0/records?offset="
                                    + offset
                                    + "&max_bytes=262144")))
                    .header("Accept", "application/vnd.kafka.json.v2+json")
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        Matcher offsets = OFFSET.matcher(response.body());
        Matcher matched = VALUE.matcher(response.body());
        int before = values.size();
        while (offsets.find() && matched.find()) {
          assertThat(Long.parseLong(offsets.group(1))).isEqualTo(offset);
          values.add(matched.group(1));
          offset++;
        }
        assertThat(values.size()).as("no progress at offset " + offset).isGreaterThan(before);
      }
      for (int i = 0; i < RECORDS; i++) {
        assertThat(values.get(i)).isEqualTo("record-" + i);
      }
      HttpResponse<String> offsets =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(restarted.url("/topics/crash/partitions/0/offsets")))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(offsets.body()).contains("\"end_offset\":" + RECORDS);
      assertThat(restarted.stop()).isIn(0, 143);
    }
  }
}
