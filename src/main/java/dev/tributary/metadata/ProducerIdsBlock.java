package dev.tributary.metadata;

/**
 * A range of producer ids that the controller gave one broker to hand out (Kafka's
 * ProducerIdsBlock): {@code [firstProducerId, firstProducerId + size)}.
 *
 * <p>Invariant: {@code firstProducerId >= 0}, {@code size > 0}, and the range does not pass {@code
 * Long.MAX_VALUE}.
 *
 * @param assignedBrokerId the broker it went to
 */
public record ProducerIdsBlock(int assignedBrokerId, long firstProducerId, int size) {
  /** Kafka's {@code PRODUCER_ID_BLOCK_SIZE}: the ids one allocation hands a broker. */
  public static final int PRODUCER_ID_BLOCK_SIZE = 1000;

  public ProducerIdsBlock {
    if (firstProducerId < 0 || size <= 0 || firstProducerId > Long.MAX_VALUE - size) {
      throw new IllegalArgumentException(
          "invalid producer id block [" + firstProducerId + ", +" + size + ")");
    }
  }

  public long lastProducerId() {
    return firstProducerId + size - 1;
  }

  /** The first id after this block: where the next block starts. */
  public long nextBlockFirstId() {
    return firstProducerId + size;
  }
}
