package dev.tributary.api;

import dev.tributary.auth.AccessGuard;
import dev.tributary.auth.RequestPrincipal;
import dev.tributary.consumer.ConsumerInstance;
import dev.tributary.consumer.ConsumerManager;
import dev.tributary.server.GroupServices;
import jakarta.servlet.http.HttpServletRequest;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;

/**
 * Finds the consumer instance a v2 request names: here, or on the broker that holds it (relayed by
 * {@link ConsumerInstanceProxy}); another principal's instance answers as if it did not exist.
 */
@Component
class ConsumerInstances {
  private final GroupServices groups;
  private final ConsumerInstanceProxy proxy;
  private final AccessGuard access;

  ConsumerInstances(GroupServices groups, ConsumerInstanceProxy proxy, AccessGuard access) {
    this.groups = groups;
    this.proxy = proxy;
    this.access = access;
  }

  private ConsumerManager consumers() {
    return groups.consumers();
  }

  /**
   * Runs {@code call} on the instance if it lives on this broker; otherwise relays the request
   * (with its {@code body}) to the broker that holds it.
   */
  CompletableFuture<ResponseEntity<?>> onInstance(
      HttpServletRequest request,
      String group,
      String instance,
      byte[] body,
      java.util.function.Function<ConsumerInstance, CompletableFuture<ResponseEntity<?>>> call) {
    ConsumerInstance consumer = local(group, instance);
    if (consumer == null) {
      return proxy.forward(request, group, instance, body);
    }
    if (access.enabled() && !consumer.principal().equals(RequestPrincipal.of(request))) {
      // As if it did not exist: another principal's instances are not even named to this one.
      throw new dev.tributary.consumer.ConsumerInstanceNotFoundException(
          "Consumer instance '" + instance + "' not found in group '" + group + "'");
    }
    return call.apply(consumer);
  }

  private ConsumerInstance local(String group, String instance) {
    return consumers().has(group, instance) ? consumers().get(group, instance) : null;
  }
}
