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

  private synchronized MetadataImage submit(Function<MetadataImage, List<MetadataRecord>> compute) {
    return quorum.append(compute.apply(quorum.image()));
  }

  private List<Integer> liveBrokers() {
    return List.of(brokerId);
  }
}
