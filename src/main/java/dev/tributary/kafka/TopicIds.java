package dev.tributary.kafka;

import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.TopicImage;
import org.apache.kafka.common.Uuid;

/** Topic ids between the image's and Kafka's: the same 128 bits. */
final class TopicIds {
  private TopicIds() {}

  static Uuid toKafka(dev.tributary.common.Uuid id) {
    return new Uuid(id.mostSignificantBits(), id.leastSignificantBits());
  }

  /** The topic with Kafka id {@code id}, or null. */
  static TopicImage find(MetadataImage image, Uuid id) {
    for (TopicImage topic : image.topicsByName().values()) {
      if (topic.topicId().mostSignificantBits() == id.getMostSignificantBits()
          && topic.topicId().leastSignificantBits() == id.getLeastSignificantBits()) {
        return topic;
      }
    }
    return null;
  }
}
