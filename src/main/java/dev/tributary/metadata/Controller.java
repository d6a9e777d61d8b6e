package dev.tributary.metadata;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The active controller of a one-broker cluster: it serializes "compute records from the current image, then
 * commit them", so that two concurrent requests cannot both pass validation against the same image (two creates of
 * one topic, say). The cluster issue moves this behind Raft leadership, with requests forwarded to whichever
 * broker leads the quorum.
 */
public final class Controller {
  private static final int MAX_ATTEMPTS = 5;
  private final MetadataQuorum quorum;
  private final TopicControl topics;
  private final int brokerId;

  public Controller(MetadataQuorum quorum, TopicControl topics, int brokerId) {
    this.quorum = quorum;
    this.topics = topics;
    this.brokerId = brokerId;
  }

  public TopicImage createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
    return submit(image -> topics.createTopic(image, name, partitions, replicationFactor, configs, liveBrokers()))
        .topic(name)
        .orElseThrow();
  }

  /** Creates {@code name} unless it exists by the time this runs; returns the topic either way. */
  public TopicImage createTopicIfAbsent(String name, int partitions, int replicationFactor) {
    return submit(
            image ->
                image.topic(name).isPresent()
                    ? List.of()
                    : topics.createTopic(image, name, partitions, replicationFactor, Map.of(), liveBrokers()))
        .topic(name)
        .orElseThrow();
  }

  public TopicImage createPartitions(String name, int newTotal) {
    return submit(image -> topics.createPartitions(image, name, newTotal, liveBrokers())).topic(name).orElseThrow();
  }

  public void deleteTopic(String name) {
    submit(image -> topics.deleteTopic(image, name));
  }

  public TopicImage alterConfig(String name, String key, String value) {
    return submit(image -> topics.alterConfig(image, name, key, value)).topic(name).orElseThrow();
  }

  /**
   * Computes records from the current image and commits them, recomputing if another batch got in first (possible
   * only around a change of controller, since this method is the only writer here).
   */
  private synchronized MetadataImage submit(Function<MetadataImage, List<MetadataRecord>> compute) {
    for (int attempt = 1; ; attempt++) {
      MetadataImage image = quorum.image();
      List<MetadataRecord> records = compute.apply(image);
      if (records.isEmpty()) {
        return image;
      }
      try {
        return quorum.append(image.lastOffset(), records);
      } catch (StaleMetadataException e) {
        if (attempt == MAX_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  private List<Integer> liveBrokers() {
    return List.of(brokerId);
  }
}
