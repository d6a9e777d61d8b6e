package dev.tributary.replication;

import dev.tributary.common.ManualClock;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;
import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.metadata.BrokerHeartbeatManager;
import dev.tributary.metadata.ClusterControl;
import dev.tributary.metadata.IsrControl;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicControl;
import dev.tributary.metadata.TopicImage;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * The controller of a {@link ReplicationScenario}: the real controller logic ({@link
 * ClusterControl}, {@link TopicControl}, {@link IsrControl}) over one metadata image. What it
 * commits is replayed into the image and applied at once by every live broker whose metadata is not
 * held. The AlterPartition requests the leaders send wait here, oldest first, until the script has
 * the controller commit, refuse or lose them; an answer reaches only the incarnation that asked.
 */
final class ScenarioController {
  private static final long SESSION_MS = 9_000;

  private final ManualClock clock;
  private final Map<Integer, ScenarioBroker> brokers;
  private final List<String> lines;
  private final Runnable afterChange;
  private final ClusterControl cluster = new ClusterControl(new BrokerHeartbeatManager(SESSION_MS));
  private final TopicControl topics = new TopicControl(new FirstChoice());
  private MetadataImage image = MetadataImage.EMPTY;

  /** AlterPartition requests not handled yet, oldest first. */
  private final Deque<SentAlter> alters = new ArrayDeque<>();

  /** Requests whose sender got no answer: sending one again prints as a resend. */
  private final Set<AlterPartitionRequest> unanswered = new HashSet<>();

  private record SentAlter(
      AlterPartitionRequest request, CompletableFuture<Void> answer, int incarnation) {}

  /** Placement without randomness: partition p's replicas start at the (p+1)th broker. */
  private static final class FirstChoice extends Random {
    FirstChoice() {
      super(0);
    }

    @Override
    public int nextInt(int bound) {
      return 0;
    }
  }

  /**
   * @param lines where what the controller does is described
   * @param afterChange runs after brokers applied a change or heard an answer (what it completed
   *     gets reported)
   */
  ScenarioController(
      ManualClock clock,
      Map<Integer, ScenarioBroker> brokers,
      List<String> lines,
      Runnable afterChange) {
    this.clock = clock;
    this.brokers = brokers;
    this.lines = lines;
    this.afterChange = afterChange;
  }

  MetadataImage image() {
    return image;
  }

  /** Replays {@code records} into the image, then every live broker applies it (unless held). */
  void commit(List<MetadataRecord> records) {
    for (MetadataRecord record : records) {
      image = image.replay(image.lastOffset() + 1, record);
      lines.add("controller commits: " + describe(record));
    }
    brokers.values().forEach(b -> b.deliver(image));
    afterChange.run();
  }

  /** The new incarnation of {@code broker} registers, catches up and is unfenced. */
  void join(ScenarioBroker broker) {
    commit(
        cluster.register(
            image,
            broker.id,
            new Uuid(broker.id, broker.incarnation),
            List.of(AdvertisedListener.http("localhost", 9000 + broker.id)),
            clock.milliseconds()));
    broker.brokerEpoch = image.broker(broker.id).orElseThrow().brokerEpoch();
    commit(
        cluster
            .heartbeat(
                image,
                broker.id,
                broker.brokerEpoch,
                broker.replicas.metadataOffset(),
                clock.milliseconds())
            .records());
  }

  void createTopic(
      String name, int partitions, int replicationFactor, Map<String, String> configs) {
    commit(
        topics.createTopic(
            image, name, partitions, replicationFactor, configs, image.unfencedBrokerIds()));
  }

  /**
   * Controlled shutdown: {@code broker}'s leaderships and ISR memberships move, and it is fenced.
   */
  void controlledShutdown(ScenarioBroker broker) {
    commit(cluster.fenceBroker(image, broker.id, broker.brokerEpoch));
  }

  /**
   * Fences every broker that is down (its session has expired), which moves what it led to the
   * first live ISR member; then, if {@code leader} does not lead {@code tp} yet, makes it leader in
   * the next leader epoch (a clean election only: it must be an ISR member on a live broker).
   */
  void elect(TopicPartition tp, int leader) {
    for (ScenarioBroker b : brokers.values()) {
      if (!b.up && image.isUnfenced(b.id)) {
        lines.add("controller: the session of " + b.name() + " expires");
        commit(cluster.fenceBroker(image, b.id, b.brokerEpoch));
      }
    }
    TopicImage topic = image.topic(tp.topic()).orElseThrow();
    PartitionImage p = topic.requirePartition(tp.partition());
    if (p.leader() == leader) {
      return;
    }
    if (!p.isr().contains(leader) || !image.isUnfenced(leader)) {
      throw new IllegalStateException(
          "b" + leader + " is not an in-sync replica on a live broker: " + p);
    }
    commit(
        List.of(
            new MetadataRecord.PartitionChange(
                topic.topicId(),
                p.partition(),
                p.replicas(),
                p.isr(),
                leader,
                p.leaderEpoch() + 1,
                p.partitionEpoch() + 1)));
  }

  // ---------------------------------------------------------------------------------------------
  // AlterPartition

  /** How incarnation {@code incarnation} of broker {@code brokerId} sends its ISR changes. */
  AlterPartitionSender alterPartitionSender(int brokerId, int incarnation) {
    return request -> {
      CompletableFuture<Void> answer = new CompletableFuture<>();
      alters.add(new SentAlter(request, answer, incarnation));
      boolean resend = unanswered.remove(request);
      lines.add(
          "b"
              + brokerId
              + " → controller: AlterPartition "
              + describe(request)
              + (resend ? " (resent: its outcome is unknown)" : ": " + request.reason()));
      return answer;
    };
  }

  /** How many AlterPartition requests wait here. */
  int pendingAlters() {
    return alters.size();
  }

  /**
   * Handles the oldest request as the controller does: validates it against the image and commits
   * it, or refuses it. With {@code answerLost} the leader never hears that it was committed.
   */
  void commitIsr(boolean answerLost) {
    SentAlter sent = nextAlter();
    AlterPartitionRequest r = sent.request();
    List<MetadataRecord> records;
    try {
      records =
          IsrControl.alterPartition(
              image,
              Uuid.parse(r.topicId()),
              r.topicPartition().partition(),
              r.leaderId(),
              r.leaderEpoch(),
              r.partitionEpoch(),
              r.newIsr(),
              r.brokerEpochs());
    } catch (ApiException e) {
      lines.add(toLeader(sent) + "refused: " + e.error() + " (" + e.getMessage() + ")");
      answer(sent, e);
      return;
    }
    if (records.isEmpty()) {
      lines.add("controller: the ISR is " + r.newIsr() + " already");
    }
    commit(records);
    if (answerLost) {
      lines.add(toLeader(sent) + "committed, but the answer is lost");
      answer(sent, new TimeoutException("no answer from the controller"));
    } else {
      lines.add(toLeader(sent) + "committed");
      answer(sent, null);
    }
  }

  /** The oldest request is refused with {@code error}, whatever the image says. */
  void refuseIsr(Errors error) {
    SentAlter sent = nextAlter();
    lines.add(toLeader(sent) + "refused: " + error);
    answer(sent, error.exception("refused by the controller (scripted)"));
  }

  /**
   * The oldest request is lost on its way: the controller never sees it, the leader hears nothing.
   */
  void loseIsr() {
    SentAlter sent = nextAlter();
    lines.add("the AlterPartition from b" + sent.request().leaderId() + " is lost on its way");
    answer(sent, new TimeoutException("no answer from the controller"));
  }

  private SentAlter nextAlter() {
    SentAlter sent = alters.poll();
    if (sent == null) {
      throw new IllegalStateException("no AlterPartition is waiting at the controller");
    }
    return sent;
  }

  /**
   * Delivers an answer to the incarnation that asked, if it is still there. A timeout stands for no
   * answer at all: the request's outcome is unknown to its sender.
   */
  private void answer(SentAlter sent, Throwable error) {
    ScenarioBroker leader = brokers.get(sent.request().leaderId());
    if (!leader.up || leader.incarnation != sent.incarnation()) {
      lines.add("(nobody hears the answer: that incarnation of " + leader.name() + " is gone)");
      return;
    }
    if (error instanceof TimeoutException) {
      unanswered.add(sent.request());
    }
    if (error == null) {
      sent.answer().complete(null);
    } else {
      sent.answer().completeExceptionally(error);
    }
    afterChange.run();
  }

  private static String toLeader(SentAlter sent) {
    return "controller → b" + sent.request().leaderId() + ": ";
  }

  // ---------------------------------------------------------------------------------------------
  // what is printed

  /**
   * The controller's view: each partition's placement, the fenced brokers, the requests waiting.
   */
  void appendState(StringBuilder out) {
    for (TopicImage topic : image.topicsByName().values()) {
      for (int partition : new TreeSet<>(topic.partitions().keySet())) {
        out.append("controller: ").append(placement(topic, partition)).append('\n');
      }
    }
    List<Integer> fenced =
        image.brokers().keySet().stream().filter(id -> !image.isUnfenced(id)).sorted().toList();
    if (!fenced.isEmpty()) {
      out.append("controller: fenced brokers ").append(fenced).append('\n');
    }
    for (SentAlter sent : alters) {
      out.append("controller has not answered: AlterPartition from b")
          .append(sent.request().leaderId())
          .append(' ')
          .append(describe(sent.request()))
          .append('\n');
    }
  }

  private String describe(MetadataRecord record) {
    if (record instanceof MetadataRecord.RegisterBroker r) {
      long epoch = image.broker(r.brokerId()).orElseThrow().brokerEpoch();
      return "b" + r.brokerId() + " registered, fenced (broker epoch " + epoch + ")";
    } else if (record instanceof MetadataRecord.BrokerUnfenced r) {
      return "b" + r.brokerId() + " unfenced";
    } else if (record instanceof MetadataRecord.BrokerFenced r) {
      return "b" + r.brokerId() + " fenced";
    } else if (record instanceof MetadataRecord.TopicCreated r) {
      return "topic " + r.name() + " created";
    } else if (record instanceof MetadataRecord.TopicConfigChanged r) {
      return "topic config " + r.name() + "=" + r.value();
    } else if (record instanceof MetadataRecord.PartitionChange r) {
      TopicImage topic = image.topic(r.topicId()).orElseThrow();
      return placement(topic, r.partition()) + " replicas=" + r.replicas();
    }
    return record.toString();
  }

  private static String placement(TopicImage topic, int partition) {
    PartitionImage p = topic.partitions().get(partition);
    return topic.name()
        + "-"
        + partition
        + " leader="
        + p.leader()
        + " leader-epoch="
        + p.leaderEpoch()
        + " isr="
        + p.isr()
        + " partition-epoch="
        + p.partitionEpoch();
  }

  private static String describe(AlterPartitionRequest r) {
    return r.topicPartition()
        + " isr="
        + r.newIsr()
        + " leader-epoch="
        + r.leaderEpoch()
        + " partition-epoch="
        + r.partitionEpoch();
  }
}
