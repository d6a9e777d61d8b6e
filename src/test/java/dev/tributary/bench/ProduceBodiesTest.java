package dev.tributary.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ProduceBodiesTest {
  private static JsonNode parse(byte[] body) {
    return Responses.JSON.readTree(new String(body, StandardCharsets.US_ASCII));
  }

  @Test
  void binaryBodyHoldsBatchRecordsWhoseValuesDecodeToRecordSizeBytes() {
    for (int size : new int[] {1, 2, 3, 100, 1000}) {
      JsonNode records =
          parse(ProduceBodies.body(PayloadFormat.BINARY, 7, size, new Random(1))).path("records");
      assertThat(records.size()).isEqualTo(7);
      for (JsonNode r : records) {
        assertThat(Base64.getDecoder().decode(r.path("value").asString())).hasSize(size);
        assertThat(r.has("key")).isFalse();
      }
    }
  }

  @Test
  void jsonBodyHoldsStringsOfRecordSizeAsciiCharacters() {
    JsonNode records =
        parse(ProduceBodies.body(PayloadFormat.JSON, 500, 100, new Random(2))).path("records");
    assertThat(records.size()).isEqualTo(500);
    for (JsonNode r : records) {
      assertThat(r.path("value").isString()).isTrue();
      assertThat(r.path("value").asString()).hasSize(100).matches("[A-Za-z0-9]+");
    }
  }

  @Test
  void poolCyclesThroughDistinctBodies() {
    ProduceBodies pool = ProduceBodies.pool(PayloadFormat.BINARY, 10, 100, 3);
    assertThat(pool.size()).isEqualTo(ProduceBodies.MAX_VARIANTS);
    Set<String> seen = new HashSet<>();
    byte[] first = pool.next();
    seen.add(new String(first, StandardCharsets.US_ASCII));
    for (int i = 1; i < pool.size(); i++) {
      seen.add(new String(pool.next(), StandardCharsets.US_ASCII));
    }
    assertThat(seen).hasSize(pool.size());
    assertThat(pool.next()).isSameAs(first);
  }

  @Test
  void poolOfHugeBodiesStaysWithinItsMemoryBudget() {
    ProduceBodies pool = ProduceBodies.pool(PayloadFormat.JSON, 10, 2 * 1024 * 1024, 4);
    assertThat(pool.size()).isEqualTo(3);
  }

  @Test
  void sameSeedGivesSameBody() {
    assertThat(ProduceBodies.body(PayloadFormat.BINARY, 3, 50, new Random(9)))
        .isEqualTo(ProduceBodies.body(PayloadFormat.BINARY, 3, 50, new Random(9)));
  }
}
