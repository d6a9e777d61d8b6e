package dev.tributary.replication;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.LogStorageException;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.PartitionImage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** How one partition's failure is answered, and where the metadata places it, for the answer. */
final class PartitionErrors {
  private static final Logger logger = LoggerFactory.getLogger(ReplicaManager.class);

  private PartitionErrors() {}

  /**
   * The Kafka error for what a partition threw. A failure that is not the core's own (a bug) is
   * logged with its stack and answered UNKNOWN_SERVER_ERROR, so one bad partition cannot fail a
   * whole request; a storage error is logged too.
   */
  static Errors errorFor(TopicPartition tp, RuntimeException e) {
    Errors error = Errors.forException(e);
    if (error == Errors.UNKNOWN_SERVER_ERROR) {
      logger.error("Unexpected error serving {}", tp, e);
    } else if (e instanceof LogStorageException) {
      logger.error("Storage error serving {}: {}", tp, e.getMessage());
    }
    return error;
  }

  /** {@code tp}'s placement in {@code image}, or null when the image does not have it. */
  static PartitionImage placement(MetadataImage image, TopicPartition tp) {
    return image
        .topic(tp.topic())
        .map(topic -> topic.partitions().get(tp.partition()))
        .orElse(null);
  }
}
