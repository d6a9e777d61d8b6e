package dev.tributary.group.assignor;

import java.util.List;
import java.util.Map;

/** The assignors Tributary's consumers support, by Kafka protocol name. */
public final class PartitionAssignors {
  private static final Map<String, PartitionAssignor> BY_NAME =
      Map.of(
          RangeAssignor.NAME, new RangeAssignor(),
          RoundRobinAssignor.NAME, new RoundRobinAssignor(),
          StickyAssignor.NAME, new StickyAssignor());
  private static final List<String> NAMES =
      List.of(RangeAssignor.NAME, RoundRobinAssignor.NAME, StickyAssignor.NAME);

  private PartitionAssignors() {}

  /**
   * The assignor with this protocol name.
   *
   * @throws IllegalArgumentException naming the valid names if there is none
   */
  public static PartitionAssignor byName(String name) {
    PartitionAssignor assignor = name == null ? null : BY_NAME.get(name);
    if (assignor == null) {
      throw new IllegalArgumentException(
          "unknown partition assignor '"
              + name
              + "'; valid assignors: "
              + String.join(", ", NAMES));
    }
    return assignor;
  }

  /** The protocol names, in a fixed order: range, roundrobin, sticky. */
  public static List<String> names() {
    return NAMES;
  }
}
