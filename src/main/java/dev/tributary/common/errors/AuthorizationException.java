package dev.tributary.common.errors;

/**
 * A principal may not do what it asked (Kafka's TOPIC_AUTHORIZATION_FAILED,
 * GROUP_AUTHORIZATION_FAILED or CLUSTER_AUTHORIZATION_FAILED, by the kind of resource refused). The
 * message names the principal, the operation and the resource, and nothing was done.
 */
public final class AuthorizationException extends ApiException {
  private final Errors error;

  public AuthorizationException(Errors error, String message) {
    super(message);
    if (error != Errors.TOPIC_AUTHORIZATION_FAILED
        && error != Errors.GROUP_AUTHORIZATION_FAILED
        && error != Errors.CLUSTER_AUTHORIZATION_FAILED) {
      throw new IllegalArgumentException(error + " is not an authorization error");
    }
    this.error = error;
  }

  @Override
  public Errors error() {
    return error;
  }
}
