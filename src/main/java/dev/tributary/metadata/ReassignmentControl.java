package dev.tributary.metadata;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Controller logic for moving a partition's replicas while it keeps serving (KIP-455, Kafka's
 * AlterPartitionReassignments): pure, like {@link ClusterControl}.
 *
 * <p>A reassignment of replicas {@code R} to target {@code T} goes through three committed states,
 * each a {@link MetadataRecord.PartitionChange}:
 *
 * <ol>
 *   <li><b>Started</b>: replicas become {@code T} then {@code R − T} (the target first, so the
 *       preferred leader is the target's), {@code adding = T − R}, {@code removing = R − T}. The
 *       ISR and the leader stay; the adding replicas' brokers create the log and fetch from the
 *       leader outside the ISR, so they hold back neither the high watermark nor acks=all.
 *   <li><b>Caught up</b>: the leader adds them to the ISR as it adds any follower that caught up
 *       (AlterPartition, {@link IsrControl}).
 *   <li><b>Completed</b>, in the same commit as the ISR change that makes every target replica in
 *       sync ({@link #completeIfCaughtUp}): replicas become {@code T}, the ISR loses the removing
 *       replicas, the lists empty, and if the leader was leaving the first in-sync target replica
 *       leads (leader epoch + 1). The removed replicas' brokers delete their logs when they see
 *       that record, so a removed replica is never the last copy of committed data: every target
 *       replica is in sync when it goes.
 * </ol>
 *
 * If every target replica is already in sync when the request comes (a shrink, or a reorder), the
 * reassignment completes at once. A cancellation returns to the original replicas {@code R}: the
 * adding ones leave (and delete what they copied). A new target for a partition being reassigned
 * replaces the old target, computed from the current replicas as Kafka does. Because all of this is
 * metadata-log state, a reassignment survives a controller failover and broker restarts.
 */
public final class ReassignmentControl {
  private ReassignmentControl() {}

  /**
   * The records that start, replace or cancel ({@code target} empty) the reassignment of each
   * partition in {@code targets}, and each partition's outcome: NONE, UNKNOWN_TOPIC_OR_PARTITION,
   * INVALID_REPLICA_ASSIGNMENT (a target that is empty, repeats a broker or names one that is not
   * registered; a cancellation that would leave no replica in sync) or NO_REASSIGNMENT_IN_PROGRESS
   * (a cancellation with nothing to cancel).
   */
  public static Result alter(
      MetadataImage image, Map<TopicPartition, Optional<List<Integer>>> targets) {
    List<MetadataRecord> records = new ArrayList<>();
    Map<TopicPartition, PartitionOutcome> outcomes = new LinkedHashMap<>();
    for (Map.Entry<TopicPartition, Optional<List<Integer>>> entry : targets.entrySet()) {
      TopicPartition tp = entry.getKey();
      TopicImage topic = image.topic(tp.topic()).orElse(null);
      PartitionImage p = topic == null ? null : topic.partitions().get(tp.partition());
      if (p == null) {
        outcomes.put(
            tp,
            new PartitionOutcome(
                Errors.UNKNOWN_TOPIC_OR_PARTITION,
                topic == null
                    ? "No such topic as " + tp.topic()
                    : "No such partition as " + name(tp)));
        continue;
      }
      try {
        MetadataRecord.PartitionChange change =
            entry.getValue().isPresent()
                ? start(image, topic, p, entry.getValue().get())
                : cancel(image, topic, p);
        if (change != null) {
          records.add(change);
        }
        outcomes.put(tp, PartitionOutcome.DONE);
      } catch (Refusal refusal) {
        outcomes.put(tp, new PartitionOutcome(refusal.error, refusal.getMessage()));
      }
    }
    return new Result(records, outcomes);
  }

  /**
   * {@code change} itself, or, if it puts every target replica of a partition being reassigned in
   * the ISR, the change that completes the reassignment on top of it (see the class comment).
   */
  static MetadataRecord.PartitionChange completeIfCaughtUp(
      MetadataImage image, MetadataRecord.PartitionChange change) {
    PartitionImage next = PartitionImage.of(change);
    if (!next.isReassigning() || !next.isr().containsAll(next.targetReplicas())) {
      return change;
    }
    List<Integer> target = next.targetReplicas();
    // One partition epoch past the one the change was based on: the completion replaces it.
    return moveTo(image, change.topicId(), next, target, change.partitionEpoch() - 1)
        .orElse(change); // no target replica may lead yet: completes on a later change
  }

  private static MetadataRecord.PartitionChange start(
      MetadataImage image, TopicImage topic, PartitionImage p, List<Integer> target) {
    checkTarget(image, name(topic, p), target);
    // Computed from the replicas the partition had before any move began, so that a new target
    // for a move in progress (or the same one sent again) keeps a cancellation exact: replicas an
    // earlier target was adding and this one does not want leave at once (they hold no data
    // anyone needs: the original replicas still do).
    List<Integer> original = p.originalReplicas();
    List<Integer> dropped = p.addingReplicas().stream().filter(id -> !target.contains(id)).toList();
    if (dropped.contains(p.leader())) {
      throw new Refusal(
          Errors.REASSIGNMENT_IN_PROGRESS,
          "Replica "
              + p.leader()
              + " leads "
              + name(topic, p)
              + " and is being added; a new target must keep it (or cancel the move first)");
    }
    List<Integer> replicas = new ArrayList<>(target);
    original.stream().filter(id -> !target.contains(id)).forEach(replicas::add);
    List<Integer> adding = target.stream().filter(id -> !original.contains(id)).toList();
    List<Integer> removing = original.stream().filter(id -> !target.contains(id)).toList();
    List<Integer> isr = p.isr().stream().filter(id -> !dropped.contains(id)).toList();
    if (isr.isEmpty()) {
      throw new Refusal(
          Errors.INVALID_REPLICA_ASSIGNMENT,
          "The target replicas "
              + target
              + " of "
              + name(topic, p)
              + " drop "
              + dropped
              + ", its only in-sync replicas "
              + p.isr()
              + "; keep one of them in the target");
    }
    boolean unchanged =
        replicas.equals(p.replicas())
            && adding.equals(p.addingReplicas())
            && removing.equals(p.removingReplicas());
    if (unchanged && !(p.isReassigning() && isr.containsAll(target))) {
      return null; // already there, or already moving there (and not yet able to complete)
    }
    MetadataRecord.PartitionChange started =
        new MetadataRecord.PartitionChange(
            topic.topicId(),
            p.partition(),
            replicas,
            isr,
            p.leader(),
            p.leaderEpoch(),
            p.partitionEpoch() + 1,
            adding,
            removing);
    if (isr.containsAll(target)) {
      // Nothing to copy (a shrink, a reorder): straight to the target. A leader that must go and
      // has
      // no successor yet (none of the target may lead) leaves the reassignment to complete later.
      return moveTo(image, topic.topicId(), PartitionImage.of(started), target, p.partitionEpoch())
          .orElse(started);
    }
    return started;
  }

  private static MetadataRecord.PartitionChange cancel(
      MetadataImage image, TopicImage topic, PartitionImage p) {
    if (!p.isReassigning()) {
      throw new Refusal(
          Errors.NO_REASSIGNMENT_IN_PROGRESS,
          "No reassignment of " + name(topic, p) + " is in progress");
    }
    List<Integer> original = p.originalReplicas();
    return moveTo(image, topic.topicId(), p, original, p.partitionEpoch())
        .orElseThrow(
            () ->
                new Refusal(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    "Cannot cancel the reassignment of "
                        + name(topic, p)
                        + ": none of its original replicas "
                        + original
                        + " is in sync and alive to lead (ISR "
                        + p.isr()
                        + "); let it complete, or reassign it again"));
  }

  /**
   * The change that ends {@code p}'s reassignment on {@code replicas} (the target, or the original
   * ones when cancelled): the ISR keeps only those, and if the leader is not among them the first
   * of them in sync and unfenced leads. Empty if none of them is in sync, or the leader must move
   * and none may lead.
   */
  private static Optional<MetadataRecord.PartitionChange> moveTo(
      MetadataImage image,
      dev.tributary.common.Uuid topicId,
      PartitionImage p,
      List<Integer> replicas,
      int basePartitionEpoch) {
    List<Integer> isr = p.isr().stream().filter(replicas::contains).toList();
    if (isr.isEmpty()) {
      return Optional.empty();
    }
    int leader = p.leader();
    if (leader == -1 || !replicas.contains(leader)) {
      Set<Integer> eligible = new HashSet<>(image.unfencedBrokerIds());
      int elected = ClusterControl.electLeader(replicas, isr, eligible);
      if (elected == -1 && leader != -1) {
        return Optional.empty();
      }
      leader = elected;
    }
    int leaderEpoch = leader != p.leader() ? p.leaderEpoch() + 1 : p.leaderEpoch();
    return Optional.of(
        new MetadataRecord.PartitionChange(
            topicId,
            p.partition(),
            replicas,
            isr,
            leader,
            leaderEpoch,
            basePartitionEpoch + 1,
            List.of(),
            List.of()));
  }

  private static void checkTarget(MetadataImage image, String tp, List<Integer> target) {
    if (target.isEmpty()) {
      throw new Refusal(
          Errors.INVALID_REPLICA_ASSIGNMENT, "The target replicas of " + tp + " are empty");
    }
    if (new HashSet<>(target).size() != target.size()) {
      throw new Refusal(
          Errors.INVALID_REPLICA_ASSIGNMENT,
          "The target replicas " + target + " of " + tp + " name a broker twice");
    }
    List<Integer> unknown =
        target.stream().filter(id -> image.broker(id).isEmpty()).sorted().toList();
    if (!unknown.isEmpty()) {
      throw new Refusal(
          Errors.INVALID_REPLICA_ASSIGNMENT,
          "The target replicas "
              + target
              + " of "
              + tp
              + " name broker(s) "
              + unknown
              + " that are not registered; registered: "
              + image.brokers().keySet());
    }
  }

  private static String name(TopicImage topic, PartitionImage p) {
    return topic.name() + "-" + p.partition();
  }

  private static String name(TopicPartition tp) {
    return tp.topic() + "-" + tp.partition();
  }

  /** What a request computed: the records to commit, and each partition's outcome. */
  public record Result(
      List<MetadataRecord> records, Map<TopicPartition, PartitionOutcome> outcomes) {
    public Result {
      records = List.copyOf(records);
      outcomes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(outcomes));
    }
  }

  /** One partition's refusal, reported in its outcome rather than failing the whole request. */
  private static final class Refusal extends RuntimeException {
    private final Errors error;

    Refusal(Errors error, String message) {
      super(message, null, false, false);
      this.error = error;
    }
  }
}
