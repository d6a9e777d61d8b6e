package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.InvalidReplicationFactorException;
import dev.tributary.transport.http.InternalApi;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;

/**
 * The controller endpoints answer a refusal as the REST API does, plus its Kafka code, so that the
 * broker that forwarded a Kafka admin request fails it with that same code.
 */
class InternalControllerErrorsTest {
  private final InternalControllerEndpoints endpoints = new InternalControllerEndpoints(null, null);

  @Test
  void aRefusalCarriesItsRestAndItsKafkaCode() {
    ResponseEntity<Object> answer =
        endpoints.refused(new InvalidReplicationFactorException("3 brokers, 4 replicas"));

    assertThat(answer.getStatusCode().value()).isEqualTo(422);
    assertThat(answer.getBody())
        .isEqualTo(
            Map.of(
                "error_code",
                42204,
                "message",
                "3 brokers, 4 replicas",
                InternalApi.KAFKA_ERROR_CODE,
                (short) 38));
  }

  @Test
  void aCodeOnlyKafkaKnowsGetsThroughToo() {
    ResponseEntity<Object> answer =
        endpoints.refused(Errors.POLICY_VIOLATION.exception("a policy said no"));

    assertThat(answer.getStatusCode().value()).isEqualTo(400);
    assertThat(((Map<?, ?>) answer.getBody()).get(InternalApi.KAFKA_ERROR_CODE))
        .isEqualTo(Errors.POLICY_VIOLATION.code());
  }
}
