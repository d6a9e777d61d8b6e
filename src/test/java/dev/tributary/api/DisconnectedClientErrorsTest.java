package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import org.springframework.web.context.request.async.AsyncRequestNotUsableException;

/**
 * A client that went away before its answer was written (a cut link, a consumer closed during a
 * long poll) is not an error of the broker's: nothing is answered and nothing is logged as one. The
 * network fault tests saw each such write logged at ERROR with a full stack trace, twice.
 */
class DisconnectedClientErrorsTest {
  private final ApiExceptionHandler handler = new ApiExceptionHandler();

  @Test
  void aBrokenPipeWhileAnsweringIsHandledWithoutAnAnswer() {
    ResponseEntity<ErrorResponse> answer =
        handler.handle(
            new AsyncRequestNotUsableException(
                "ServletResponse failed to flushBuffer", new IOException("Broken pipe")));

    assertThat(answer).as("nobody to answer").isNull();
  }

  @Test
  void aResetConnectionInsideACompletionIsHandledWithoutAnAnswer() {
    assertThat(handler.handle(new CompletionException(new IOException("Connection reset by peer"))))
        .isNull();
  }

  @Test
  void anyOtherUnexpectedFailureIsStillA500WithoutInternals() {
    ResponseEntity<ErrorResponse> answer = handler.handle(new IllegalStateException("boom"));

    assertThat(answer.getStatusCode().value()).isEqualTo(500);
    assertThat(answer.getBody().errorCode()).isEqualTo(50001);
    assertThat(answer.getBody().message()).doesNotContain("boom");
  }
}
