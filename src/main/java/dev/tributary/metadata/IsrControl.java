package dev.tributary.metadata;

import dev.tributary.common.Uuid;
import dev.tributary.common.errors.FencedLeaderEpochException;
import dev.tributary.common.errors.IneligibleReplicaException;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.common.errors.InvalidUpdateVersionException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import java.util.List;
import java.util.Map;

/**
 * Controller logic for a leader's ISR change (Kafka's AlterPartition in ReplicationControlManager):
 * validates the proposal against the image and computes the {@link MetadataRecord.PartitionChange}
 * that carries it out. Pure.
 *
 * <p>A proposal is accepted only if it comes from the partition's current leader, in the current
 * leader epoch (else FENCED_LEADER_EPOCH: a deposed leader) and against the current partition epoch
 * (else INVALID_UPDATE_VERSION: the leader has not seen the last change yet); the new ISR must hold
 * the leader and only assigned replicas, and every replica it adds must be an unfenced broker in
 * the registration the leader saw fetch (KIP-841, KIP-903), so a dead or restarted broker cannot be
 * added on the strength of an old incarnation's fetches. An ISR change that brings every target
 * replica of a reassignment in sync completes the reassignment ({@link ReassignmentControl}). See
 * docs/adr/0009-isr-and-high-watermark.md.
 */
public final class IsrControl {
  private IsrControl() {}

  public static List<MetadataRecord> alterPartition(
      MetadataImage image,
      Uuid topicId,
      int partition,
      int leaderId,
      int leaderEpoch,
      int partitionEpoch,
      List<Integer> newIsr,
      Map<Integer, Long> brokerEpochs) {
    TopicImage topic =
        image
            .topic(topicId)
            .orElseThrow(() -> UnknownTopicOrPartitionException.unknownTopic("with id " + topicId));
    PartitionImage current = topic.requirePartition(partition);
    String tp = topic.name() + "-" + partition;
    if (leaderEpoch < current.leaderEpoch()) {
      throw new FencedLeaderEpochException(
          "ISR change for "
              + tp
              + " in leader epoch "
              + leaderEpoch
              + "; the current epoch is "
              + current.leaderEpoch());
    }
    if (current.leader() != leaderId || leaderEpoch != current.leaderEpoch()) {
      throw new NotLeaderOrFollowerException(
          "Broker "
              + leaderId
              + " does not lead "
              + tp
              + " in epoch "
              + leaderEpoch
              + "; broker "
              + current.leader()
              + " does in epoch "
              + current.leaderEpoch());
    }
    if (partitionEpoch != current.partitionEpoch()) {
      throw new InvalidUpdateVersionException(
          "ISR change for "
              + tp
              + " against partition epoch "
              + partitionEpoch
              + "; the current one is "
              + current.partitionEpoch());
    }
    if (!newIsr.contains(leaderId)
        || !current.replicas().containsAll(newIsr)
        || newIsr.stream().distinct().count() != newIsr.size()) {
      throw new InvalidRequestException(
          "ISR "
              + newIsr
              + " for "
              + tp
              + " must hold the leader "
              + leaderId
              + " and only replicas "
              + current.replicas());
    }
    for (int added : newIsr) {
      if (current.isr().contains(added)) {
        continue;
      }
      BrokerImage broker = image.broker(added).orElse(null);
      Long seenEpoch = brokerEpochs.get(added);
      if (broker == null || broker.fenced()) {
        throw new IneligibleReplicaException(
            "Replica "
                + added
                + " of "
                + tp
                + " cannot join the ISR: its broker is fenced or unregistered");
      }
      if (seenEpoch != null && seenEpoch != broker.brokerEpoch()) {
        throw new IneligibleReplicaException(
            "Replica "
                + added
                + " of "
                + tp
                + " caught up in broker epoch "
                + seenEpoch
                + ", not its current "
                + broker.brokerEpoch());
      }
    }
    if (newIsr.equals(current.isr())) {
      return List.of();
    }
    // The ISR change that puts the last target replica of a reassignment in sync also completes
    // it, in the same record.
    return List.of(
        ReassignmentControl.completeIfCaughtUp(
            image,
            current.change(
                topic.topicId(),
                newIsr,
                current.leader(),
                current.leaderEpoch(),
                current.partitionEpoch() + 1)));
  }
}
