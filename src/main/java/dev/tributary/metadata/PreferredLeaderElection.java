package dev.tributary.metadata;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Controller logic for preferred leader election (Kafka's ElectLeaders with PREFERRED, and {@code
 * auto.leader.rebalance.enable}): computes the partition changes that give leadership back to each
 * partition's preferred (first) replica, and what happened to each partition asked for. Pure, like
 * {@link ClusterControl}; a change bumps the leader and partition epochs as every leader change
 * does.
 */
public final class PreferredLeaderElection {
  private PreferredLeaderElection() {}

  /**
   * The records and per-partition outcomes of a preferred leader election (Kafka's ElectLeaders
   * with PREFERRED) over {@code partitions}, in their order, or over every partition when null;
   * then, as in Kafka, partitions whose preferred replica already leads are left out of the
   * outcomes. A partition is elected when its preferred replica is in its ISR and unfenced;
   * otherwise PREFERRED_LEADER_NOT_AVAILABLE, and the leader stays.
   */
  public static Result elect(MetadataImage image, Collection<TopicPartition> partitions) {
    boolean all = partitions == null;
    // Each partition once, however often it is named: one change record at most.
    Collection<TopicPartition> wanted =
        new java.util.LinkedHashSet<>(all ? allPartitions(image) : partitions);
    List<MetadataRecord> records = new ArrayList<>();
    Map<TopicPartition, ElectionOutcome> outcomes = new LinkedHashMap<>();
    for (TopicPartition tp : wanted) {
      TopicImage topic = image.topic(tp.topic()).orElse(null);
      PartitionImage p = topic == null ? null : topic.partitions().get(tp.partition());
      if (p == null) {
        outcomes.put(
            tp,
            new ElectionOutcome(
                Errors.UNKNOWN_TOPIC_OR_PARTITION,
                topic == null
                    ? "No such topic as " + tp.topic()
                    : "No such partition as " + tp.topic() + "-" + tp.partition()));
        continue;
      }
      int preferred = p.replicas().get(0);
      if (p.leader() == preferred) {
        if (!all) {
          outcomes.put(
              tp,
              new ElectionOutcome(
                  Errors.ELECTION_NOT_NEEDED,
                  "Preferred replica "
                      + preferred
                      + " already leads "
                      + tp.topic()
                      + "-"
                      + tp.partition()));
        }
      } else if (!p.isr().contains(preferred) || !image.isUnfenced(preferred)) {
        outcomes.put(
            tp,
            new ElectionOutcome(
                Errors.PREFERRED_LEADER_NOT_AVAILABLE,
                "Preferred replica "
                    + preferred
                    + (image.isUnfenced(preferred)
                        ? " is not in the ISR " + p.isr()
                        : " is not alive (fenced or not registered)")));
      } else {
        records.add(ClusterControl.change(topic.topicId(), p, p.isr(), preferred));
        outcomes.put(tp, ElectionOutcome.ELECTED);
      }
    }
    return new Result(records, outcomes);
  }

  /** What an election computed: the records to commit, and each outcome. */
  public record Result(
      List<MetadataRecord> records, Map<TopicPartition, ElectionOutcome> outcomes) {
    public Result {
      records = List.copyOf(records);
      outcomes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(outcomes));
    }
  }

  private static List<TopicPartition> allPartitions(MetadataImage image) {
    List<TopicPartition> all = new ArrayList<>();
    for (TopicImage topic : image.topicsByName().values()) {
      for (int partition : topic.partitions().keySet()) {
        all.add(new TopicPartition(topic.name(), partition));
      }
    }
    return all;
  }
}
