package dev.tributary.common.errors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.errors.RetriableException;
import org.junit.jupiter.api.Test;

/**
 * {@link Errors}: Kafka's codes by Kafka's names and numbers (checked against kafka-clients), the
 * exception each code stands for, and what a client is told of a failure.
 */
class ErrorsTest {
  @Test
  void everyCodeRoundTripsThroughItsNumberAndNoNumberIsUsedTwice() {
    Set<Short> codes = new HashSet<>();
    for (Errors error : Errors.values()) {
      assertThat(codes.add(error.code())).as("%s's code %d", error, error.code()).isTrue();
      assertThat(Errors.forCode(error.code())).isEqualTo(error);
    }
  }

  @Test
  void aNumberNotKnownHereIsUnknownServerError() {
    assertThat(Errors.forCode((short) 9_999)).isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
    assertThat(Errors.forCode((short) -2)).isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
  }

  @Test
  void everyCodeHasKafkasNameNumberAndRetriability() {
    List<String> differences = new ArrayList<>();
    for (Errors error : Errors.values()) {
      org.apache.kafka.common.protocol.Errors kafka =
          org.apache.kafka.common.protocol.Errors.forCode(error.code());
      if (!kafka.name().equals(error.name())) {
        differences.add(error + " is " + kafka + " in Kafka");
      }
      boolean retriable = kafka.exception() instanceof RetriableException;
      if (error != Errors.NONE && error.retriable() != retriable) {
        differences.add(error + " retriable=" + error.retriable() + ", Kafka's " + retriable);
      }
    }
    assertThat(differences).isEmpty();
  }

  @Test
  void everyErrorsExceptionNamesTheSameCodeAndCarriesTheMessage() {
    for (Errors error : Errors.values()) {
      if (error == Errors.NONE) {
        continue;
      }
      ApiException exception = error.exception("because " + error);
      assertThat(exception.error()).as("%s's exception", error).isEqualTo(error);
      assertThat(exception.getMessage()).isEqualTo("because " + error);
      assertThat(Errors.forException(exception)).isEqualTo(error);
    }
  }

  @Test
  void codesWithAClassOfTheirOwnGetThatClass() {
    assertThat(Errors.NOT_LEADER_OR_FOLLOWER.exception("m"))
        .isInstanceOf(NotLeaderOrFollowerException.class);
    assertThat(Errors.UNKNOWN_TOPIC_OR_PARTITION.exception("m"))
        .isInstanceOf(UnknownTopicOrPartitionException.class);
    assertThat(Errors.TOPIC_ALREADY_EXISTS.exception("m")).isInstanceOf(TopicExistsException.class);
    assertThat(Errors.GROUP_AUTHORIZATION_FAILED.exception("m"))
        .isInstanceOf(AuthorizationException.class);
    assertThat(Errors.NETWORK_EXCEPTION.exception("m")).isInstanceOf(ErrorCodeException.class);
  }

  @Test
  void noneIsNotAnError() {
    assertThatThrownBy(() -> Errors.NONE.exception("m"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ErrorCodeException(Errors.NONE, "m"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void forExceptionLooksThroughCompletionAndExecutionWrappers() {
    ApiException fenced = new FencedLeaderEpochException("old epoch");
    Throwable wrapped = new CompletionException(new ExecutionException(fenced));

    assertThat(Errors.forException(wrapped)).isEqualTo(Errors.FENCED_LEADER_EPOCH);
    assertThat(Errors.unwrap(wrapped)).isSameAs(fenced);
    assertThat(Errors.messageOf(wrapped)).isEqualTo("old epoch");
    assertThat(Errors.forException(new CompletionException(new TimeoutException("slow"))))
        .isEqualTo(Errors.REQUEST_TIMED_OUT);
    assertThat(Errors.forException(new IllegalStateException("bug")))
        .isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
  }

  @Test
  void messageOfTellsTheCoresOwnRefusalsAndHidesEverythingElse() {
    assertThat(Errors.messageOf(new InvalidRequestException("acks must be 0, 1 or all")))
        .isEqualTo("acks must be 0, 1 or all");
    assertThat(Errors.messageOf(new TimeoutException("waited 30000 ms")))
        .isEqualTo("waited 30000 ms");
    assertThat(
            Errors.messageOf(
                new CompletionException(
                    new IllegalStateException("/var/lib/tributary/orders-0 is corrupt"))))
        .isEqualTo("Internal error: IllegalStateException")
        .doesNotContain("/var/lib");
    assertThat(Errors.messageOf(new NullPointerException("field x of y")))
        .isEqualTo("Internal error: NullPointerException");
  }
}
