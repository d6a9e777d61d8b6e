package dev.tributary.api;

import org.springframework.http.HttpStatus;
import tools.jackson.core.exc.StreamConstraintsException;

/**
 * The answer to a JSON body that breaks one of Jackson's stream read constraints. Every JSON body
 * (produce, consumer and admin requests alike) is read by the application's {@code JsonMapper},
 * whose nesting depth is bounded at {@code tributary.max-json-nesting-depth} (64 by default; see
 * config/LimitsConfiguration); Jackson stops at the first level too deep, before building the tree.
 */
final class JsonLimits {
  private JsonLimits() {}

  /**
   * 400 40004, naming the limit Jackson reports (nesting depth, or a number or string too long).
   */
  static RestException constraintBroken(StreamConstraintsException e) {
    return new RestException(
        HttpStatus.BAD_REQUEST,
        40004,
        "The JSON body breaks a parsing limit: "
            + e.getOriginalMessage()
            + " (the nesting depth is tributary.max-json-nesting-depth)");
  }
}
