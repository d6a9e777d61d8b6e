package dev.tributary.kafka;

import dev.tributary.common.errors.Errors;

/** The core's Kafka error codes as kafka-clients' enum: the same numbers, the same meanings. */
final class KafkaErrors {
  private KafkaErrors() {}

  static org.apache.kafka.common.protocol.Errors of(Errors error) {
    return org.apache.kafka.common.protocol.Errors.forCode(error.code());
  }

  /** The Kafka error for a failure: a core refusal's own code, or a kafka-clients exception's. */
  static org.apache.kafka.common.protocol.Errors of(Throwable failure) {
    Throwable cause = Errors.unwrap(failure);
    if (cause instanceof org.apache.kafka.common.errors.ApiException) {
      return org.apache.kafka.common.protocol.Errors.forException(cause);
    }
    return of(Errors.forException(cause));
  }

  /** What to tell the client about a failure: the core's message, never a library's internals. */
  static String message(Throwable failure) {
    Throwable cause = Errors.unwrap(failure);
    if (cause instanceof org.apache.kafka.common.errors.ApiException) {
      return cause.getMessage();
    }
    return Errors.messageOf(cause);
  }
}
