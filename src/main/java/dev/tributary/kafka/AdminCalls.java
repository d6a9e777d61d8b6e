package dev.tributary.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the admin handlers share: a request names many topics or resources, each is answered on its
 * own (one refused, the others done), and the answer goes out once every one has settled.
 */
final class AdminCalls {
  private static final Logger logger = LoggerFactory.getLogger(AdminCalls.class);

  private AdminCalls() {}

  /** How one item of a request ended: Kafka's error and message ({@link Errors#NONE}, null). */
  record Outcome(Errors error, String message) {
    static final Outcome NONE = new Outcome(Errors.NONE, null);

    /** The outcome of a call that failed with {@code failure}, or {@link #NONE} when null. */
    static Outcome of(Throwable failure) {
      if (failure == null) {
        return NONE;
      }
      Errors error = KafkaErrors.of(failure);
      if (error == Errors.UNKNOWN_SERVER_ERROR) {
        logger.error("Unexpected error in an admin request", failure);
      }
      return new Outcome(error, KafkaErrors.message(failure));
    }

    static Outcome error(Errors error, String message) {
      return new Outcome(error, message);
    }

    boolean failed() {
      return error != Errors.NONE;
    }
  }

  /** Runs {@code call}; a refusal it throws (an ACL check, a bad value) fails its future. */
  static <T> CompletableFuture<T> attempt(Supplier<CompletableFuture<T>> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The results of {@code calls} in their order, once all are done; none of them may fail. */
  static <T> CompletableFuture<List<T>> all(List<CompletableFuture<T>> calls) {
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
        .thenApply(
            done -> {
              List<T> results = new ArrayList<>(calls.size());
              calls.forEach(call -> results.add(call.join()));
              return results;
            });
  }
}
