package dev.tributary.common.errors;

/** Kafka's INVALID_PARTITIONS: a partition count below 1, or a decrease. */
public class InvalidPartitionsException extends ApiException {
  public InvalidPartitionsException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.INVALID_PARTITIONS;
  }
}
