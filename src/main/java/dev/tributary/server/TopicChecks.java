package dev.tributary.server;

import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.util.HashMap;
import java.util.Map;

/**
 * One request's authorisation of the topics it names, for services that answer per partition: each
 * topic is checked once (and a refusal counted once), however many of its partitions the request
 * names. Not thread-safe: one per request.
 */
final class TopicChecks {
  private static final String ALLOWED = "";

  private final AccessControl access;
  private final RequestContext context;
  private final AclOperation operation;
  private final Map<String, String> refusals = new HashMap<>();

  TopicChecks(AccessControl access, RequestContext context, AclOperation operation) {
    this.access = access;
    this.context = context;
    this.operation = operation;
  }

  /** Null if the principal may do the operation on {@code topic}; else the refusal's message. */
  String refusal(String topic) {
    String refusal =
        refusals.computeIfAbsent(
            topic,
            t ->
                access.allows(context, operation, ResourceType.TOPIC, t)
                    ? ALLOWED
                    : access
                        .denied(context.principal(), operation, ResourceType.TOPIC, t)
                        .getMessage());
    return refusal.isEmpty() ? null : refusal;
  }
}
