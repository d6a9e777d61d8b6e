package dev.tributary.metadata;

import dev.tributary.common.errors.BrokerNotRegisteredException;
import dev.tributary.common.errors.StaleBrokerEpochException;
import java.util.List;

/**
 * The controller's side of producer id allocation (Kafka's ProducerIdControlManager, for
 * AllocateProducerIds): a broker asks for a block of {@link
 * ProducerIdsBlock#PRODUCER_ID_BLOCK_SIZE} ids and gets the next one, starting at the image's next
 * producer id. The block is the broker's once the {@link MetadataRecord.ProducerIds} record
 * computed here is committed; replaying it moves the next producer id past the block on every
 * member, so neither another broker nor a later controller (after failover, from the same log or a
 * snapshot) hands it out again.
 *
 * <p>Invariant (enforced by {@link MetadataImage#replay}): the next producer id only increases.
 * Stateless: everything comes from the image it is given.
 */
public final class ProducerIdControl {
  private ProducerIdControl() {}

  /** The block a broker gets, with the record that gives it. */
  public record Allocation(ProducerIdsBlock block, List<MetadataRecord> records) {}

  /**
   * The next block for registration {@code brokerEpoch} of {@code brokerId} (Kafka checks the
   * broker epoch too, so a stale incarnation cannot take ids).
   *
   * @throws BrokerNotRegisteredException if the broker id has no registration
   * @throws StaleBrokerEpochException if {@code brokerEpoch} is not its current registration's
   * @throws IllegalStateException if the ids are exhausted (Kafka's UNKNOWN_SERVER_ERROR)
   */
  public static Allocation allocate(MetadataImage image, int brokerId, long brokerEpoch) {
    BrokerImage broker = image.brokers().get(brokerId);
    if (broker == null) {
      throw new BrokerNotRegisteredException(
          "Broker " + brokerId + " is not registered; it cannot take producer ids");
    }
    if (broker.brokerEpoch() != brokerEpoch) {
      throw new StaleBrokerEpochException(
          "Broker "
              + brokerId
              + " asked for producer ids with broker epoch "
              + brokerEpoch
              + " but its current registration has epoch "
              + broker.brokerEpoch());
    }
    long first = image.nextProducerId();
    if (first > Long.MAX_VALUE - ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE) {
      throw new IllegalStateException(
          "Exhausted all producer ids: the next block would pass " + Long.MAX_VALUE);
    }
    ProducerIdsBlock block =
        new ProducerIdsBlock(brokerId, first, ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE);
    return new Allocation(
        block,
        List.of(new MetadataRecord.ProducerIds(brokerId, brokerEpoch, block.nextBlockFirstId())));
  }
}
