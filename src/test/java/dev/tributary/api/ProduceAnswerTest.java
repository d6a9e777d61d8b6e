package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.common.errors.NotEnoughReplicasException;
import dev.tributary.server.RecordProducer.RecordOffset;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.json.JsonMapper;

/**
 * The produce answer written token by token is byte for byte what Jackson's generator wrote for the
 * same offsets (the reference below), errors with messages that need escaping included.
 */
class ProduceAnswerTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @Test
  void answersAreWhatJacksonWritesForRandomOutcomes() {
    for (long seed = 1; seed <= 100; seed++) {
      Random random = new Random(seed);
      List<RecordOffset> offsets = new ArrayList<>();
      int count = random.nextInt(600);
      for (int i = 0; i < count; i++) {
        Throwable error =
            switch (random.nextInt(10)) {
              case 0 -> new NotEnoughReplicasException("ISR [1] is below min.insync.replicas 2");
              case 1 -> new InvalidRequestException("bad \"value\"\n\u00e9\u4e2d\t\\ at " + i);
              default -> null;
            };
        long offset = error == null ? random.nextLong(Long.MAX_VALUE) : -1;
        offsets.add(new RecordOffset(random.nextInt(100), offset, -1, error));
      }
      String written =
          new String(ProduceController.answer(offsets).toByteArray(), StandardCharsets.UTF_8);
      assertThat(written).as("seed %d", seed).isEqualTo(reference(offsets));
    }
  }

  /** The answer as the generator wrote it before. */
  private static String reference(List<RecordOffset> offsets) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeNullProperty("key_schema_id");
      g.writeNullProperty("value_schema_id");
      g.writeArrayPropertyStart("offsets");
      for (RecordOffset offset : offsets) {
        g.writeStartObject();
        g.writeNumberProperty("partition", offset.partition());
        if (offset.error() == null) {
          g.writeNumberProperty("offset", offset.offset());
          g.writeNullProperty("error_code");
          g.writeNullProperty("error");
        } else {
          ErrorResponse error = ApiExceptionHandler.toResponse(offset.error()).getBody();
          g.writeNullProperty("offset");
          g.writeNumberProperty("error_code", error.errorCode());
          g.writeStringProperty("error", error.message());
        }
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
