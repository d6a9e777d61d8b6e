package dev.tributary.demo;

import java.util.List;
import java.util.Optional;

/** Every demo, in the order {@code ./tributary demo} lists them: add a new one here. */
final class Demos {
  static final List<Demo> ALL =
      List.of(
          new PartitionsDemo(),
          new ReplicationDemo(),
          new HwDemo(),
          new AcksDemo(),
          new IsrDemo(),
          new FailoverDemo(),
          new ControllerDemo(),
          new GroupsDemo());

  private Demos() {}

  static Optional<Demo> named(String name) {
    return ALL.stream().filter(d -> d.name().equals(name)).findFirst();
  }
}
