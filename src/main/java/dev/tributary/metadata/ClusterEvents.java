package dev.tributary.metadata;

import dev.tributary.common.Uuid;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Describes a batch of metadata records as {@link ClusterEvent}s for the timeline: which broker was
 * fenced, which partition changed leader (old → new, epoch) or ISR (who left or joined), which
 * topic appeared. Pure: the controller calls it with the image the batch was computed from, so the
 * descriptions are exact, and commits them with the batch (see {@link Controller}).
 *
 * <p>The texts are English. The dashboard reads the numbers of some back to say them in Chinese
 * (static/js/timeline.js, {@code SAYINGS}; docs/adr/0022): a changed sentence shows in English on
 * the Chinese page until its pattern there follows.
 */
public final class ClusterEvents {
  /**
   * How many events an image keeps; older ones fall off (the timeline is recent history, not an
   * audit log).
   */
  public static final int MAX_RETAINED = 200;

  private ClusterEvents() {}

  /**
   * How many of a new topic's partitions get an event of their own under its {@code TOPIC_CREATED};
   * the rest are counted in one more, so that a topic of a thousand partitions does not push the
   * whole history out.
   */
  static final int MAX_NEW_PARTITION_EVENTS = 12;

  /**
   * The events {@code records} amount to when replayed on {@code before}, causes first: each event
   * of the batch that a broker's fencing, registration or unfencing, or a topic's creation or
   * deletion, brought about carries that event's {@link ClusterEvent#index} as its {@link
   * ClusterEvent#causeIndex}. The records are one controller decision, so the link is exact: a
   * leadership moved in the batch that fenced its leader moved because of that fencing. When a
   * batch has several causes (two sessions expiring at once), an event belongs to the fencing or
   * registration of a broker it moves away from (the old leader, a replica leaving the ISR), the
   * unfencing of a broker it moves to (the new leader, a replica joining), or the creation or
   * deletion of its topic, else to the first. A batch without a cause (an ISR change a leader
   * proposed, a preferred leader election) links nothing.
   *
   * @param reason why the controller computed them (null if it did not say)
   */
  public static List<ClusterEvent> describe(
      MetadataImage before, List<MetadataRecord> records, String reason, long nowMs) {
    Batch batch = new Batch();
    MetadataImage image = before;
    long offset = before.lastOffset();
    Map<Uuid, Integer> newTopicPartitions = new LinkedHashMap<>();
    for (MetadataRecord record : records) {
      if (record instanceof MetadataRecord.EventsRecorded) {
        continue;
      }
      if (record instanceof MetadataRecord.TopicCreated created) {
        newTopicPartitions.put(created.topicId(), 0);
      }
      if (record instanceof MetadataRecord.PartitionChange change
          && newTopicPartitions.containsKey(change.topicId())) {
        // A new topic's partitions are children of its TOPIC_CREATED, up to a few.
        int seen = newTopicPartitions.merge(change.topicId(), 1, Integer::sum);
        if (seen <= MAX_NEW_PARTITION_EVENTS) {
          describeNewPartition(image, change, reason, nowMs, batch);
        }
      } else {
        describeOne(image, record, reason, nowMs, batch);
      }
      image = image.replay(++offset, record);
    }
    for (Map.Entry<Uuid, Integer> topic : newTopicPartitions.entrySet()) {
      int more = topic.getValue() - MAX_NEW_PARTITION_EVENTS;
      if (more > 0) {
        String name = image.topic(topic.getKey()).map(TopicImage::name).orElse("?");
        batch.add(
            event(
                nowMs,
                ClusterEvent.Type.PARTITIONS_ADDED,
                name,
                -1,
                -1,
                "and " + more + " more partition" + (more == 1 ? "" : "s") + " of " + name,
                reason),
            Set.of(),
            Set.of());
      }
    }
    return batch.linked();
  }

  /**
   * The events of one batch being described, each with the brokers it concerns, then put in order
   * and linked to their causes by {@link #linked()}.
   */
  private static final class Batch {
    private final List<ClusterEvent> events = new ArrayList<>();
    private final Map<ClusterEvent, Set<Integer>> leaving = new IdentityHashMap<>();
    private final Map<ClusterEvent, Set<Integer>> arriving = new IdentityHashMap<>();

    /** Adds {@code event}, about the broker it names (if any). */
    void add(ClusterEvent event) {
      Set<Integer> named = event.brokerId() < 0 ? Set.of() : Set.of(event.brokerId());
      add(event, named, named);
    }

    /**
     * Adds {@code event}, which moves leadership or ISR places away from the brokers {@code from}
     * and to the brokers {@code to}.
     */
    void add(ClusterEvent event, Set<Integer> from, Set<Integer> to) {
      events.add(event);
      leaving.put(event, from);
      arriving.put(event, to);
    }

    /** The causes first, in batch order, then the rest, each pointing at its cause. */
    List<ClusterEvent> linked() {
      List<ClusterEvent> causes = events.stream().filter(ClusterEvent::isCause).toList();
      List<ClusterEvent> linked = new ArrayList<>(events.size());
      for (ClusterEvent cause : causes) {
        linked.add(cause.placed(linked.size(), -1));
      }
      for (ClusterEvent event : events) {
        if (!event.isCause()) {
          linked.add(event.placed(linked.size(), causeOf(event, causes)));
        }
      }
      return List.copyOf(linked);
    }

    private int causeOf(ClusterEvent event, List<ClusterEvent> causes) {
      if (causes.isEmpty()) {
        return -1;
      }
      for (int i = 0; i < causes.size(); i++) {
        ClusterEvent cause = causes.get(i);
        Set<Integer> concerned =
            cause.type() == ClusterEvent.Type.BROKER_UNFENCED
                ? arriving.get(event)
                : leaving.get(event);
        boolean sameBroker = cause.brokerId() >= 0 && concerned.contains(cause.brokerId());
        boolean sameTopic = cause.topic() != null && cause.topic().equals(event.topic());
        if (sameBroker || sameTopic) {
          return i;
        }
      }
      return 0;
    }
  }

  /** One partition of a topic created in the same batch: where it lives and who leads it. */
  private static void describeNewPartition(
      MetadataImage image,
      MetadataRecord.PartitionChange change,
      String reason,
      long nowMs,
      Batch batch) {
    String name = image.topic(change.topicId()).map(TopicImage::name).orElse("?");
    batch.add(
        event(
            nowMs,
            ClusterEvent.Type.PARTITIONS_ADDED,
            name,
            change.partition(),
            change.leader(),
            "partition "
                + name
                + "-"
                + change.partition()
                + " on replicas "
                + change.replicas()
                + ", leader "
                + (change.leader() < 0 ? "none" : String.valueOf(change.leader())),
            reason));
  }

  /** The HTTP listener's {@code host:port}, then any other listener by name. */
  private static String where(List<AdvertisedListener> listeners) {
    StringBuilder text = new StringBuilder();
    AdvertisedListener http =
        AdvertisedListener.named(listeners, AdvertisedListener.HTTP).orElseThrow();
    text.append(http.host()).append(':').append(http.port());
    for (AdvertisedListener listener : listeners) {
      if (listener != http) {
        text.append(", ")
            .append(listener.name())
            .append(' ')
            .append(listener.host())
            .append(':')
            .append(listener.port());
      }
    }
    return text.toString();
  }

  private static void describeOne(
      MetadataImage image, MetadataRecord record, String reason, long nowMs, Batch events) {
    if (record instanceof MetadataRecord.RegisterBroker r) {
      boolean restart = image.broker(r.brokerId()).isPresent();
      events.add(
          event(
              nowMs,
              ClusterEvent.Type.BROKER_REGISTERED,
              null,
              -1,
              r.brokerId(),
              "broker "
                  + r.brokerId()
                  + (restart ? " registered again (new process)" : " registered")
                  + " at "
                  + where(r.listeners()),
              null));
    } else if (record instanceof MetadataRecord.BrokerFenced r) {
      if (isCurrentRegistration(image, r.brokerId(), r.brokerEpoch(), false)) {
        events.add(
            event(
                nowMs,
                ClusterEvent.Type.BROKER_FENCED,
                null,
                -1,
                r.brokerId(),
                "broker " + r.brokerId() + " fenced",
                reason));
      }
    } else if (record instanceof MetadataRecord.UnregisterBroker r) {
      events.add(
          event(
              nowMs,
              ClusterEvent.Type.BROKER_UNREGISTERED,
              null,
              -1,
              r.brokerId(),
              "broker " + r.brokerId() + " unregistered",
              reason));
    } else if (record instanceof MetadataRecord.BrokerUnfenced r) {
      if (isCurrentRegistration(image, r.brokerId(), r.brokerEpoch(), true)) {
        events.add(
            event(
                nowMs,
                ClusterEvent.Type.BROKER_UNFENCED,
                null,
                -1,
                r.brokerId(),
                "broker " + r.brokerId() + " unfenced",
                "caught up with the metadata log"));
      }
    } else if (record instanceof MetadataRecord.TopicCreated r) {
      events.add(
          event(
              nowMs,
              ClusterEvent.Type.TOPIC_CREATED,
              r.name(),
              -1,
              -1,
              "topic " + r.name() + " created",
              reason));
    } else if (record instanceof MetadataRecord.TopicDeleted r) {
      image
          .topic(r.topicId())
          .ifPresent(
              topic ->
                  events.add(
                      event(
                          nowMs,
                          ClusterEvent.Type.TOPIC_DELETED,
                          topic.name(),
                          -1,
                          -1,
                          "topic " + topic.name() + " deleted",
                          reason)));
    } else if (record instanceof MetadataRecord.TopicConfigChanged r) {
      image
          .topic(r.topicId())
          .ifPresent(
              topic ->
                  events.add(
                      event(
                          nowMs,
                          ClusterEvent.Type.CONFIG_CHANGED,
                          topic.name(),
                          -1,
                          -1,
                          r.name()
                              + (r.value() == null ? " reset to its default" : " = " + r.value())
                              + " on "
                              + topic.name(),
                          reason)));
    } else if (record instanceof MetadataRecord.BrokerConfigChanged r) {
      String who =
          r.brokerId() == MetadataImage.DEFAULT_BROKER
              ? "every broker (default)"
              : "broker " + r.brokerId();
      events.add(
          event(
              nowMs,
              ClusterEvent.Type.CONFIG_CHANGED,
              null,
              -1,
              r.brokerId(),
              r.name() + (r.value() == null ? " removed" : " = " + r.value()) + " on " + who,
              reason));
    } else if (record instanceof MetadataRecord.PartitionChange r) {
      describePartitionChange(image, r, reason, nowMs, events);
    }
  }

  private static void describePartitionChange(
      MetadataImage image,
      MetadataRecord.PartitionChange change,
      String reason,
      long nowMs,
      Batch events) {
    TopicImage topic = image.topic(change.topicId()).orElse(null);
    if (topic == null) {
      return;
    }
    String tp = topic.name() + "-" + change.partition();
    PartitionImage old = topic.partitions().get(change.partition());
    if (old == null) {
      events.add(
          event(
              nowMs,
              ClusterEvent.Type.PARTITIONS_ADDED,
              topic.name(),
              change.partition(),
              -1,
              "partition " + tp + " added on replicas " + change.replicas(),
              reason));
      return;
    }
    maybeReassignmentEvent(topic, old, PartitionImage.of(change), reason, nowMs, events);
    if (old.leader() != change.leader()) {
      String text =
          change.leader() < 0
              ? tp
                  + " offline: leader "
                  + old.leader()
                  + " → none (leader epoch "
                  + change.leaderEpoch()
                  + ")"
              : tp
                  + " leader "
                  + (old.leader() < 0 ? "none" : String.valueOf(old.leader()))
                  + " → "
                  + change.leader()
                  + " (leader epoch "
                  + change.leaderEpoch()
                  + ")";
      events.add(
          event(
              nowMs,
              ClusterEvent.Type.LEADER_CHANGED,
              topic.name(),
              change.partition(),
              change.leader(),
              text,
              reason),
          Set.of(old.leader()),
          Set.of(change.leader()));
    }
    maybeIsrEvent(
        ClusterEvent.Type.ISR_SHRINK,
        old.isr(),
        change.isr(),
        "left",
        topic,
        change,
        reason,
        nowMs,
        events);
    maybeIsrEvent(
        ClusterEvent.Type.ISR_EXPAND,
        change.isr(),
        old.isr(),
        "joined",
        topic,
        change,
        reason,
        nowMs,
        events);
  }

  /** A reassignment's step, if {@code next} changes the replicas or the reassignment's state. */
  private static void maybeReassignmentEvent(
      TopicImage topic,
      PartitionImage old,
      PartitionImage next,
      String reason,
      long nowMs,
      Batch events) {
    if (old.replicas().equals(next.replicas())
        && old.addingReplicas().equals(next.addingReplicas())
        && old.removingReplicas().equals(next.removingReplicas())) {
      return;
    }
    String tp = topic.name() + "-" + next.partition();
    String text;
    if (next.isReassigning()) {
      text =
          tp
              + (old.isReassigning() ? " reassignment retargeted: " : " reassignment started: ")
              + old.targetReplicas()
              + " → "
              + next.targetReplicas()
              + " (adding "
              + next.addingReplicas()
              + ", removing "
              + next.removingReplicas()
              + ")";
    } else if (old.isReassigning() && next.replicas().equals(old.targetReplicas())) {
      text = tp + " reassignment completed: replicas " + next.replicas();
    } else if (old.isReassigning()) {
      text = tp + " reassignment cancelled: replicas back to " + next.replicas();
    } else {
      text = tp + " replicas " + old.replicas() + " → " + next.replicas() + " (all in sync)";
    }
    List<Integer> joined =
        next.replicas().stream().filter(id -> !old.replicas().contains(id)).toList();
    List<Integer> left =
        old.replicas().stream().filter(id -> !next.replicas().contains(id)).toList();
    events.add(
        event(
            nowMs,
            ClusterEvent.Type.REASSIGNMENT,
            topic.name(),
            next.partition(),
            next.leader(),
            text,
            reason),
        Set.copyOf(left),
        Set.copyOf(joined));
  }

  /**
   * One ISR event for the replicas in {@code from} but not in {@code to} ({@code verb}: left or
   * joined), if any.
   */
  private static void maybeIsrEvent(
      ClusterEvent.Type type,
      List<Integer> from,
      List<Integer> to,
      String verb,
      TopicImage topic,
      MetadataRecord.PartitionChange change,
      String reason,
      long nowMs,
      Batch events) {
    List<Integer> moved = from.stream().filter(id -> !to.contains(id)).toList();
    if (moved.isEmpty()) {
      return;
    }
    PartitionImage old = topic.partitions().get(change.partition());
    String tp = topic.name() + "-" + change.partition();
    events.add(
        event(
            nowMs,
            type,
            topic.name(),
            change.partition(),
            moved.size() == 1 ? moved.get(0) : -1,
            tp + " ISR " + old.isr() + " → " + change.isr() + ": " + ids(moved) + " " + verb,
            reason),
        type == ClusterEvent.Type.ISR_SHRINK ? Set.copyOf(moved) : Set.of(),
        type == ClusterEvent.Type.ISR_EXPAND ? Set.copyOf(moved) : Set.of());
  }

  /** The event of a controller taking over, written by the new controller as its first batch. */
  public static ClusterEvent controllerElected(int controllerId, long controllerEpoch, long nowMs) {
    return event(
        nowMs,
        ClusterEvent.Type.CONTROLLER_ELECTED,
        null,
        -1,
        controllerId,
        "broker " + controllerId + " is the active controller (Raft term " + controllerEpoch + ")",
        "won the metadata quorum's election");
  }

  /**
   * Broker {@code replicaId} cut offsets {@code [from, to)} of a partition from its log to follow
   * {@code leaderId}. Above the high watermark the records were never committed: no {@code
   * acks=all} producer was told they were written, an {@code acks=1} or {@code acks=0} one may have
   * been, and for it they are lost.
   */
  public static ClusterEvent replicaTruncated(
      String topic,
      int partition,
      int replicaId,
      int leaderId,
      int leaderEpoch,
      long from,
      long to,
      long highWatermark,
      long nowMs) {
    long count = to - from;
    String offsets = count == 1 ? "offset " + from : "offsets " + from + "–" + (to - 1);
    String reason =
        from >= highWatermark
            ? "above the high watermark ("
                + highWatermark
                + "): never committed, so no acks=all producer was told "
                + (count == 1 ? "it was" : "they were")
                + " written; acks=1 or acks=0 producers may have been, and lost "
                + (count == 1 ? "it" : "them")
            : "the replica's high watermark was " + highWatermark;
    return event(
        nowMs,
        ClusterEvent.Type.REPLICA_TRUNCATED,
        topic,
        partition,
        replicaId,
        "replica "
            + replicaId
            + " dropped "
            + offsets
            + " that leader "
            + leaderId
            + " never had (leader epoch "
            + leaderEpoch
            + ")",
        reason);
  }

  /**
   * A fault injected on purpose ({@code text}, e.g. "broker 3 cut off from broker 1; clients still
   * reach it"), on broker {@code brokerId} (-1: the whole network, as a heal), by {@code how}.
   */
  public static ClusterEvent faultInjected(int brokerId, String text, String how, long nowMs) {
    return event(nowMs, ClusterEvent.Type.FAULT_INJECTED, null, -1, brokerId, text, how);
  }

  /**
   * {@code history} followed by {@code added}, stamped with {@code offset} where unstamped, and
   * bounded.
   */
  static List<ClusterEvent> append(
      List<ClusterEvent> history, List<ClusterEvent> added, long offset) {
    List<ClusterEvent> next =
        new ArrayList<>(Math.min(MAX_RETAINED, history.size() + added.size()));
    int keepFromHistory = Math.max(0, history.size() + added.size() - MAX_RETAINED);
    next.addAll(history.subList(Math.min(keepFromHistory, history.size()), history.size()));
    int skipAdded = Math.max(0, keepFromHistory - history.size());
    for (ClusterEvent event : added.subList(Math.min(skipAdded, added.size()), added.size())) {
      next.add(event.offset() < 0 ? event.atOffset(offset) : event);
    }
    return List.copyOf(next);
  }

  private static boolean isCurrentRegistration(
      MetadataImage image, int brokerId, long brokerEpoch, boolean fenced) {
    return image
        .broker(brokerId)
        .filter(b -> b.brokerEpoch() == brokerEpoch && b.fenced() == fenced)
        .isPresent();
  }

  private static String ids(List<Integer> brokerIds) {
    return (brokerIds.size() == 1 ? "replica " : "replicas ")
        + String.join(", ", brokerIds.stream().map(Objects::toString).toList());
  }

  private static ClusterEvent event(
      long nowMs,
      ClusterEvent.Type type,
      String topic,
      int partition,
      int brokerId,
      String text,
      String reason) {
    return new ClusterEvent(-1, nowMs, type, topic, partition, brokerId, text, reason);
  }
}
