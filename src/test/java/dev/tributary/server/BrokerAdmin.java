package dev.tributary.server;

import dev.tributary.metadata.TopicImage;
import java.util.Map;

/**
 * Admin calls on an in-process {@link BrokerServer} through its {@link AdminService}, for tests.
 */
public final class BrokerAdmin {
  private BrokerAdmin() {}

  public static AdminService of(BrokerServer broker) {
    return new AdminService(
        broker, broker.config(), AccessControl.ALLOW_ALL, broker.metadataWaiters());
  }

  /** Creates a topic and waits until the broker has applied it. */
  public static TopicImage createTopic(
      BrokerServer broker, String name, int partitions, int replicationFactor) {
    return of(broker)
        .createTopic(RequestContext.INTERNAL, name, partitions, replicationFactor, Map.of())
        .join();
  }
}
