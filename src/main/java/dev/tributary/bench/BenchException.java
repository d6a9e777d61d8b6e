package dev.tributary.bench;

/** A run cannot go on (broker unreachable, topic unusable); the message is shown as is. */
final class BenchException extends RuntimeException {
  BenchException(String message) {
    super(message);
  }
}
