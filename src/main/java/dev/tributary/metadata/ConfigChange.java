package dev.tributary.metadata;

import dev.tributary.common.errors.InvalidRequestException;
import java.util.Objects;

/**
 * One change to a topic config (Kafka's {@code AlterConfigOp}): set a value, delete the topic's own
 * value (back to the default), or append to or subtract from a list-typed config.
 *
 * @param value the value set, or the comma-separated items appended or subtracted; null for {@link
 *     Op#DELETE}
 */
public record ConfigChange(String name, Op op, String value) {
  /** Kafka's {@code AlterConfigOp.OpType}, in its order (the wire ids are the ordinals). */
  public enum Op {
    SET,
    DELETE,
    APPEND,
    SUBTRACT
  }

  /**
   * @throws InvalidRequestException for a missing value (Kafka's "Null value not supported")
   */
  public ConfigChange {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(op, "op");
    if (op == Op.DELETE) {
      value = null;
    } else if (value == null) {
      throw new InvalidRequestException("Null value not supported for : " + name);
    }
  }

  public static ConfigChange set(String name, String value) {
    return new ConfigChange(name, Op.SET, value);
  }

  public static ConfigChange delete(String name) {
    return new ConfigChange(name, Op.DELETE, null);
  }
}
