package dev.tributary.consumer;

import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;

/** The group's coordinator could not be reached or answered a retriable error; retry. */
public final class CoordinatorNotAvailableException extends ApiException {
  public CoordinatorNotAvailableException(String message) {
    super(message);
  }

  /** Throws unless the coordinator of {@code groupId} answered {@code error} NONE. */
  public static void requireAnswered(String groupId, dev.tributary.group.GroupError error) {
    if (error != dev.tributary.group.GroupError.NONE) {
      throw new CoordinatorNotAvailableException(
          "The coordinator of group '" + groupId + "' is not available (" + error + "); retry");
    }
  }

  @Override
  public Errors error() {
    return Errors.COORDINATOR_NOT_AVAILABLE;
  }
}
