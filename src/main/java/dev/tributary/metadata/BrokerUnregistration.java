package dev.tributary.metadata;

import dev.tributary.common.errors.BrokerNotRegisteredException;
import dev.tributary.common.errors.InvalidRequestException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Removing a decommissioned broker from the cluster (Kafka's UnregisterBroker, {@code kafka-cluster
 * unregister}): the last step of emptying a broker, after its replicas moved away and it stopped.
 *
 * <p>Stricter than Kafka, which removes any registration it is asked to: the broker must be fenced
 * (stopped, or cut off long enough for its session to end) so that a running broker is never
 * dropped under its clients; and no partition may name it among its replicas, adding or removing
 * replicas included, so that no assignment ever points at a broker the metadata does not know. A
 * broker that starts again later simply registers again.
 */
public final class BrokerUnregistration {
  /** How many partitions a refusal names; the count says the rest. */
  static final int NAMED = 10;

  private BrokerUnregistration() {}

  /**
   * The record that unregisters {@code brokerId}.
   *
   * @throws BrokerNotRegisteredException if the metadata has no such broker
   * @throws InvalidRequestException if it is unfenced, or some partition still lists it
   */
  public static List<MetadataRecord> records(MetadataImage image, int brokerId) {
    BrokerImage broker =
        image
            .broker(brokerId)
            .orElseThrow(
                () ->
                    new BrokerNotRegisteredException("Broker " + brokerId + " is not registered"));
    if (!broker.fenced()) {
      throw new InvalidRequestException(
          "Broker "
              + brokerId
              + " is running (unfenced); stop it before unregistering it, and move its replicas"
              + " away first (decommission)");
    }
    List<String> holding = partitionsListing(image, brokerId);
    if (!holding.isEmpty()) {
      throw new InvalidRequestException(
          "Broker "
              + brokerId
              + " still holds replicas of "
              + holding.size()
              + " partition(s) ("
              + String.join(", ", holding.subList(0, Math.min(NAMED, holding.size())))
              + (holding.size() > NAMED ? ", ..." : "")
              + "); move them to other brokers first");
    }
    return List.of(new MetadataRecord.UnregisterBroker(brokerId, broker.brokerEpoch()));
  }

  /** {@code topic-partition} of every partition whose replicas include {@code brokerId}. */
  static List<String> partitionsListing(MetadataImage image, int brokerId) {
    List<String> found = new ArrayList<>();
    for (TopicImage topic : image.topicsByName().values()) {
      for (Map.Entry<Integer, PartitionImage> p : topic.partitions().entrySet()) {
        PartitionImage partition = p.getValue();
        if (partition.replicas().contains(brokerId)
            || partition.addingReplicas().contains(brokerId)
            || partition.removingReplicas().contains(brokerId)) {
          found.add(topic.name() + "-" + p.getKey());
        }
      }
    }
    return found;
  }
}
