package dev.tributary.replication;

import dev.tributary.common.TopicPartition;
import java.util.List;
import java.util.Map;

/**
 * A leader's proposal to change a partition's ISR (Kafka's AlterPartition, KIP-497): valid only
 * against the leader epoch and partition epoch it names, so that a deposed leader's or an outdated
 * proposal is refused.
 *
 * @param topicId the topic's id, so that a proposal about a deleted and re-created topic is refused
 * @param newIsr the proposed ISR, leader included
 * @param brokerEpochs the broker epoch of each replica that the proposal adds, as the leader saw it
 *     fetch (KIP-903: a new incarnation of that broker must catch up again before it joins)
 * @param reason why the leader proposes it, for the controller's log and the cluster timeline
 */
public record AlterPartitionRequest(
    String topicId,
    TopicPartition topicPartition,
    int leaderId,
    int leaderEpoch,
    int partitionEpoch,
    List<Integer> newIsr,
    Map<Integer, Long> brokerEpochs,
    String reason) {
  public AlterPartitionRequest {
    newIsr = List.copyOf(newIsr);
    brokerEpochs = Map.copyOf(brokerEpochs);
  }
}
