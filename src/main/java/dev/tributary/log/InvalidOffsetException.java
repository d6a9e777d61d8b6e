package dev.tributary.log;

/**
 * Batches whose offsets do not continue the log: a follower append that does not start at the log
 * end offset or is not contiguous, or an index append that goes backwards (a bug).
 */
public class InvalidOffsetException extends RuntimeException {
  public InvalidOffsetException(String message) {
    super(message);
  }
}
