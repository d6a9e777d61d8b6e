package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.errors.InvalidRegistrationException;
import dev.tributary.transport.http.InternalApi;
import org.junit.jupiter.api.Test;

/** How the controller's refusal of a registration answers (docs/api.md, Errors). */
class RegistrationErrorMappingTest {
  @Test
  void anInvalidRegistrationAnswers400WithTheCodeTheBrokersChannelMapsBack() {
    var response =
        ApiExceptionHandler.toResponse(
            new InvalidRegistrationException("Broker 2 registered no HTTP listener"));

    assertThat(response.getStatusCode().value()).isEqualTo(400);
    assertThat(response.getBody().errorCode())
        .isEqualTo(40008)
        .isEqualTo(InternalApi.INVALID_REGISTRATION);
    assertThat(response.getBody().message()).isEqualTo("Broker 2 registered no HTTP listener");
  }
}
