package dev.tributary.common.errors;

/**
 * Kafka's UNKNOWN_TOPIC_OR_PARTITION: no such topic, or no such partition of it. {@link
 * #topicExists()} tells the two apart for clients that report them differently (REST Proxy's 40401
 * and 40402).
 */
public class UnknownTopicOrPartitionException extends ApiException {
  private final boolean topicExists;

  private UnknownTopicOrPartitionException(String message, boolean topicExists) {
    super(message);
    this.topicExists = topicExists;
  }

  public static UnknownTopicOrPartitionException unknownTopic(String topic) {
    return new UnknownTopicOrPartitionException("Topic '" + topic + "' does not exist.", false);
  }

  /** An unknown topic, with a sentence on why it was not auto-created. */
  public static UnknownTopicOrPartitionException unknownTopic(String topic, String why) {
    return new UnknownTopicOrPartitionException(
        "Topic '" + topic + "' does not exist; " + why, false);
  }

  public static UnknownTopicOrPartitionException unknownPartition(
      String topic, int partition, int partitionCount) {
    return new UnknownTopicOrPartitionException(
        "Partition "
            + partition
            + " of topic '"
            + topic
            + "' does not exist; the topic has "
            + partitionCount
            + " partition(s).",
        true);
  }

  /** An error another broker answered with, known only by its message. */
  public static UnknownTopicOrPartitionException withMessage(String message) {
    return new UnknownTopicOrPartitionException(message, false);
  }

  public boolean topicExists() {
    return topicExists;
  }

  @Override
  public Errors error() {
    return Errors.UNKNOWN_TOPIC_OR_PARTITION;
  }
}
