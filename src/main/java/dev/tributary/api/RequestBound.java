package dev.tributary.api;

import java.util.function.Function;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;

/**
 * Lets the continuation of an asynchronous answer build links from its request (REST Proxy v3's
 * {@code self} URLs come from the request's scheme, host and port): it runs on whichever thread
 * completed the service's future, where Spring's request holder is empty, so the request's
 * attributes are carried over and bound for the continuation.
 */
final class RequestBound {
  private RequestBound() {}

  /** {@code continuation}, run with the current request bound; call on the request thread. */
  static <T, R> Function<T, R> withRequest(Function<T, R> continuation) {
    RequestAttributes attributes = RequestContextHolder.currentRequestAttributes();
    return value -> {
      RequestAttributes previous = RequestContextHolder.getRequestAttributes();
      RequestContextHolder.setRequestAttributes(attributes);
      try {
        return continuation.apply(value);
      } finally {
        RequestContextHolder.setRequestAttributes(previous);
      }
    };
  }
}
