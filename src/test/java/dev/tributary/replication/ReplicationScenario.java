package dev.tributary.replication;

import dev.tributary.common.ManualClock;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.LogConfig;
import dev.tributary.log.PartitionLog;
import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.metadata.ClusterControl;
import dev.tributary.metadata.IsrControl;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicControl;
import dev.tributary.metadata.TopicImage;
import dev.tributary.scenario.Directive;
import dev.tributary.scenario.ScenarioHandler;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The commands of the replication scenarios ({@code src/test/resources/scenarios/replication}):
 * brokers numbered from 1, each a {@link ScenarioBroker} with its real replica manager, partitions
 * and logs on disk; the controller's real logic ({@link ClusterControl}, {@link TopicControl},
 * {@link IsrControl}) over a metadata image that reaches every live broker as soon as it is
 * committed (unless held); one manual clock; followers' fetchers stepped by hand; AlterPartition
 * requests kept at the controller until the script answers them.
 *
 * <pre>
 *   cluster brokers=3 [lag-ms=10000]     brokers register and are unfenced (replica.lag.time.max.ms)
 *   create-topic name=t partitions=1 rf=3 [min-isr=2]
 *                                        placed without randomness: t-0 on [1, 2, 3], led by 1
 *   produce broker=1 acks=all|1 [n=1] [timeout-ms=30000]   one request, n records v1, v2, ...
 *   consume broker=1 [offset=0]          a consumer's fetch: what it may read (below the HW)
 *   fetch follower=2                     one round of broker 2's fetcher that reaches its leader:
 *                                        a fetch, or while reconciling an epoch query (KIP-101/279)
 *   tick ms=N                            advance the clock (acks=all produces may time out)
 *   check-isr [broker=1]                 the ISR check (replica.lag.time.max.ms; resends an ISR
 *                                        change whose outcome is unknown); all live brokers if none
 *   commit-isr [answer=lost]             the controller handles the oldest AlterPartition (it may
 *                                        refuse it); with answer=lost the leader never hears back
 *   refuse-isr error=NAME                the controller refuses the oldest one with that error
 *   lose-isr                             the oldest one is lost on its way: no answer
 *   crash broker=1                       the process dies (see ScenarioBroker)
 *   elect leader=2                       the controller fences the brokers that are down (their
 *                                        sessions expired), then, if 2 does not lead yet, makes it
 *                                        leader (it must be in the ISR): leader epoch + 1
 *   stop broker=1                        controlled shutdown, then a clean stop
 *   restart broker=1                     a new incarnation on the same directory registers
 *   log-tasks broker=1                   its periodic log tasks (they checkpoint the high watermarks)
 *   hold-metadata broker=1 / release-metadata broker=1    its metadata stops / catches up
 *   logs                                 every live replica's batches
 *   state                                only the state
 * </pre>
 *
 * A partition may be named with {@code partition=t-0}; without, the one partition there is. Every
 * command but {@code logs} prints what happened, in order (requests between brokers and their
 * answers, controller records, produce answers), then the state: each broker's {@link
 * Partition#statusLine()}, the controller's view, the AlterPartition requests it has not answered,
 * the acks=all produces still waiting, and every acknowledged produce with whether the current
 * leader still holds it.
 */
final class ReplicationScenario implements ScenarioHandler, AutoCloseable {
  private static final int MAX_BYTES = 1 << 20;

  private final Path root;
  private final ManualClock clock = new ManualClock();
  private final long startMs = clock.milliseconds();
  private final Map<Integer, ScenarioBroker> brokers = new TreeMap<>();

  /** What the current command printed so far. */
  private final List<String> lines = new ArrayList<>();

  private final ScenarioEndpoint endpoint =
      new ScenarioEndpoint(brokers, lines, this::collectAnswers);
  private final ScenarioController controller =
      new ScenarioController(clock, brokers, lines, this::collectAnswers);

  private final List<Produce> waiting = new ArrayList<>();
  private final List<Produce> acknowledged = new ArrayList<>();

  private int nextValue = 1;
  private int nextProduce = 1;

  /** One produce request of n records to one broker. */
  private record Produce(
      int number,
      String acks,
      ScenarioBroker broker,
      TopicPartition tp,
      List<String> values,
      long baseOffset,
      CompletableFuture<ProducePartitionResult> answer) {
    String name() {
      return "#" + number;
    }

    String offsets() {
      return "offsets " + baseOffset + "-" + (baseOffset + values.size() - 1);
    }
  }

  ReplicationScenario(Path root) {
    this.root = root;
  }

  @Override
  public String run(Directive d) {
    switch (d.command()) {
      case "cluster" -> startCluster(d.intArg("brokers"), d.longArg("lag-ms", 10_000));
      case "create-topic" -> {
        Map<String, String> configs = new HashMap<>();
        if (d.hasArg("min-isr")) {
          configs.put(LogConfig.MIN_IN_SYNC_REPLICAS, d.arg("min-isr"));
        }
        controller.createTopic(d.arg("name"), d.intArg("partitions", 1), d.intArg("rf"), configs);
      }
      case "produce" -> produce(d);
      case "consume" -> consume(d);
      case "fetch" -> fetch(upBroker(d, "follower"));
      case "tick" -> {
        clock.advance(d.longArg("ms"));
        say("t=" + (clock.milliseconds() - startMs));
      }
      case "check-isr" -> checkIsr(d);
      case "commit-isr" ->
          controller.commitIsr(
              switch (d.arg("answer", "sent")) {
                case "sent" -> false;
                case "lost" -> true;
                default -> throw d.fail("answer is sent or lost");
              });
      case "refuse-isr" -> controller.refuseIsr(Errors.valueOf(d.arg("error")));
      case "lose-isr" -> controller.loseIsr();
      case "crash" -> crash(upBroker(d, "broker"));
      case "elect" -> controller.elect(partition(d), d.intArg("leader"));
      case "stop" -> stop(upBroker(d, "broker"));
      case "restart" -> restart(d);
      case "log-tasks" -> {
        ScenarioBroker b = upBroker(d, "broker");
        b.replicas.runPeriodicLogTasks();
        say(b.name() + " runs its log tasks: " + checkpoint(b));
      }
      case "hold-metadata" -> upBroker(d, "broker").metadataHeld = true;
      case "release-metadata" -> {
        ScenarioBroker b = upBroker(d, "broker");
        b.metadataHeld = false;
        b.deliver(controller.image());
        say(b.name() + " applies the metadata up to offset " + b.replicas.metadataOffset());
      }
      case "logs" -> {
        return logs();
      }
      case "state" -> {}
      default -> throw d.fail("unknown command");
    }
    collectAnswers();
    StringBuilder out = new StringBuilder();
    lines.forEach(l -> out.append(l).append('\n'));
    lines.clear();
    return out.append(state()).toString();
  }

  private void say(String line) {
    lines.add(line);
  }

  // ---------------------------------------------------------------------------------------------
  // brokers and the controller

  private void startCluster(int count, long lagMs) {
    if (!brokers.isEmpty()) {
      throw new IllegalStateException("the cluster is already up");
    }
    ReplicationConfig config = new ReplicationConfig(lagMs, 0, MAX_BYTES, MAX_BYTES, 100);
    for (int id = 1; id <= count; id++) {
      ScenarioBroker broker =
          new ScenarioBroker(id, root.resolve("b" + id), clock, config, endpoint);
      brokers.put(id, broker);
      start(broker);
      controller.join(broker);
    }
  }

  private void start(ScenarioBroker broker) {
    broker.start(
        controller.image(), incarnation -> controller.alterPartitionSender(broker.id, incarnation));
  }

  private void crash(ScenarioBroker broker) {
    broker.crash();
    say(broker.name() + " crashes");
    for (Produce p : List.copyOf(waiting)) {
      if (p.broker() == broker) {
        waiting.remove(p);
        say(p.name() + ": the connection to " + broker.name() + " is lost; outcome unknown");
      }
    }
  }

  /** Controlled shutdown (the controller moves its leaderships and memberships), then a stop. */
  private void stop(ScenarioBroker broker) {
    say(broker.name() + " shuts down: controlled shutdown first");
    controller.controlledShutdown(broker);
    broker.stop();
    say(broker.name() + " stopped: " + checkpoint(broker));
  }

  private void restart(Directive d) {
    ScenarioBroker broker = broker(d, "broker");
    if (broker.up) {
      throw d.fail(broker.name() + " is up");
    }
    start(broker);
    say(broker.name() + " restarts: " + checkpoint(broker));
    controller.join(broker);
  }

  private String checkpoint(ScenarioBroker broker) {
    Map<TopicPartition, Long> checkpointed = new TreeMap<>(ReplicationScenario::byName);
    checkpointed.putAll(broker.logs.highWatermarkCheckpoint());
    return checkpointed.isEmpty()
        ? "no replication-offset-checkpoint"
        : "replication-offset-checkpoint " + checkpointed.toString().replace(", ", " ");
  }

  private static int byName(TopicPartition a, TopicPartition b) {
    return a.toString().compareTo(b.toString());
  }

  private void checkIsr(Directive d) {
    List<ScenarioBroker> checking =
        d.hasArg("broker")
            ? List.of(upBroker(d, "broker"))
            : brokers.values().stream().filter(b -> b.up).toList();
    for (ScenarioBroker b : checking) {
      if (b.partitions().stream().noneMatch(Partition::isLeader)) {
        continue;
      }
      int before = controller.pendingAlters();
      b.replicas.maybeShrinkIsr();
      if (controller.pendingAlters() == before) {
        say(b.name() + " checks its ISR: nothing to send");
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // produce, consume, fetch

  private void produce(Directive d) {
    ScenarioBroker broker = broker(d, "broker");
    String acksName = d.arg("acks");
    Acks acks = Acks.parse(acksName);
    int n = d.intArg("n", 1);
    long timeoutMs = d.longArg("timeout-ms", 30_000);
    TopicPartition tp = partition(d);
    List<String> values = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      values.add("v" + nextValue++);
    }
    int number = nextProduce++;
    String what = "#" + number + " " + String.join(" ", values) + " acks=" + acksName + " → ";
    if (!broker.up) {
      say(what + broker.name() + ": connection refused");
      return;
    }
    long baseOffset = broker.partition(tp).map(Partition::logEndOffset).orElse(-1L);
    try {
      CompletableFuture<ProducePartitionResult> answer =
          ReplicaManagerCalls.append(
              broker.replicas,
              tp,
              TestBatches.batch(values.toArray(String[]::new)),
              acks,
              timeoutMs);
      Produce produce = new Produce(number, acksName, broker, tp, values, baseOffset, answer);
      say(what + broker.name() + ": appended at " + produce.offsets());
      waiting.add(produce);
    } catch (ApiException e) {
      say(what + broker.name() + ": " + e.error() + " (" + e.getMessage() + ")");
    }
  }

  /** Reports every produce answered since the last call. */
  private void collectAnswers() {
    for (Produce p : List.copyOf(waiting)) {
      if (!p.answer().isDone()) {
        continue;
      }
      waiting.remove(p);
      try {
        p.answer().join();
        say(p.name() + " acknowledged (" + p.offsets() + ")");
        acknowledged.add(p);
      } catch (CompletionException e) {
        say(p.name() + " failed: " + Errors.forException(e) + " (" + Errors.messageOf(e) + ")");
      }
    }
  }

  private void consume(Directive d) {
    ScenarioBroker broker = upBroker(d, "broker");
    TopicPartition tp = partition(d);
    long offset = d.longArg("offset", 0);
    String what = "a consumer reads " + tp + " at " + broker.name() + " from offset " + offset;
    try {
      FetchPartitionData data =
          ReplicaManagerCalls.fetch(broker.replicas, tp, offset, MAX_BYTES, 0).join();
      List<String> values = TestBatches.values(data.records());
      say(
          what
              + ": "
              + (values.isEmpty() ? "nothing" : String.join(" ", values))
              + " (hw="
              + data.highWatermark()
              + ")");
    } catch (CompletionException e) {
      say(what + ": " + Errors.forException(e));
    }
  }

  /**
   * One round of the follower's fetcher for each leader it follows that reaches the leader. A round
   * that asks nothing (a log without epochs has nothing to reconcile) does not count.
   */
  private void fetch(ScenarioBroker follower) {
    Set<Integer> leaders = new TreeSet<>(follower.fetchers.leaders());
    if (leaders.isEmpty()) {
      say(follower.name() + " follows no leader");
    }
    for (int leaderId : leaders) {
      ReplicaFetcher fetcher = follower.fetchers.fetcher(leaderId).orElseThrow();
      int callsBefore = endpoint.calls;
      for (int round = 0; round < 3 && endpoint.calls == callsBefore; round++) {
        Map<TopicPartition, Long> logEndOffsets = new HashMap<>();
        follower.partitions().forEach(p -> logEndOffsets.put(p.topicPartition(), p.logEndOffset()));
        fetcher.doWork();
        for (Partition p : follower.partitions()) {
          long before = logEndOffsets.getOrDefault(p.topicPartition(), -1L);
          if (p.logEndOffset() < before) {
            say(
                follower.name()
                    + " truncates "
                    + p.topicPartition()
                    + " to offset "
                    + p.logEndOffset()
                    + " (its log ended at "
                    + before
                    + ")");
          }
        }
      }
      if (endpoint.calls == callsBefore) {
        say(follower.name() + " has nothing to ask b" + leaderId + " now (backing off)");
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // what is printed

  private String state() {
    StringBuilder out = new StringBuilder();
    for (ScenarioBroker b : brokers.values()) {
      if (!b.up) {
        out.append(b.name()).append(" down\n");
        continue;
      }
      for (Partition p : b.partitions()) {
        out.append(p.statusLine());
        if (b.metadataHeld) {
          out.append(" (metadata held at offset ").append(b.replicas.metadataOffset()).append(')');
        }
        out.append('\n');
      }
    }
    controller.appendState(out);
    for (Produce p : waiting) {
      out.append("waiting: ").append(p.name()).append(" acks=").append(p.acks()).append(' ');
      out.append(p.offsets());
      out.append(" at ").append(p.broker().name()).append('\n');
    }
    for (Produce p : acknowledged) {
      out.append("acknowledged: ").append(p.name()).append(" acks=").append(p.acks()).append(' ');
      out.append(p.offsets()).append(", ").append(onLeader(p)).append('\n');
    }
    return out.toString();
  }

  /** Whether the partition's current leader holds {@code p}'s records at their offsets. */
  private String onLeader(Produce p) {
    PartitionImage placement =
        controller.image().topic(p.tp().topic()).orElseThrow().requirePartition(p.tp().partition());
    ScenarioBroker leader = brokers.get(placement.leader());
    if (leader == null || !leader.up) {
      return "no live leader";
    }
    Map<Long, String> records = records(leader.partition(p.tp()).orElseThrow().log());
    for (int i = 0; i < p.values().size(); i++) {
      if (!p.values().get(i).equals(records.get(p.baseOffset() + i))) {
        return "LOST: leader " + leader.name() + " does not have them";
      }
    }
    return "on leader " + leader.name();
  }

  private String logs() {
    StringBuilder out = new StringBuilder();
    for (ScenarioBroker b : brokers.values()) {
      if (!b.up) {
        out.append(b.name()).append(" down\n");
        continue;
      }
      for (Partition p : b.partitions()) {
        out.append(b.name()).append(' ').append(p.topicPartition()).append(':');
        if (p.logEndOffset() == p.logStartOffset()) {
          out.append(" (empty)");
        }
        for (RecordBatch batch : batches(p.log())) {
          out.append(" [")
              .append(batch.baseOffset())
              .append('-')
              .append(batch.lastOffset())
              .append(" e")
              .append(batch.partitionLeaderEpoch())
              .append(": ")
              .append(String.join(" ", TestBatches.values(batch.slice())))
              .append(']');
        }
        out.append('\n');
      }
    }
    return out.toString();
  }

  private static List<RecordBatch> batches(PartitionLog log) {
    List<RecordBatch> all = new ArrayList<>();
    long offset = log.logStartOffset();
    while (offset < log.logEndOffset()) {
      ByteBuffer read = log.read(offset, MAX_BYTES, Long.MAX_VALUE, true).records();
      for (RecordBatch batch : BatchIterator.strict(read)) {
        all.add(batch);
        offset = batch.nextOffset();
      }
    }
    return all;
  }

  /** Every record of {@code log}: offset → value. */
  private static Map<Long, String> records(PartitionLog log) {
    Map<Long, String> values = new HashMap<>();
    for (RecordBatch batch : batches(log)) {
      List<String> batchValues = TestBatches.values(batch.slice());
      for (int i = 0; i < batchValues.size(); i++) {
        values.put(batch.baseOffset() + i, batchValues.get(i));
      }
    }
    return values;
  }

  // ---------------------------------------------------------------------------------------------
  // arguments

  private ScenarioBroker broker(Directive d, String key) {
    ScenarioBroker broker = brokers.get(d.intArg(key));
    if (broker == null) {
      throw d.fail("no broker " + d.arg(key));
    }
    return broker;
  }

  private ScenarioBroker upBroker(Directive d, String key) {
    ScenarioBroker broker = broker(d, key);
    if (!broker.up) {
      throw d.fail(broker.name() + " is down");
    }
    return broker;
  }

  /** {@code partition=t-0}, or the one partition there is. */
  private TopicPartition partition(Directive d) {
    if (d.hasArg("partition")) {
      String text = d.arg("partition");
      int dash = text.lastIndexOf('-');
      return new TopicPartition(
          text.substring(0, dash), Integer.parseInt(text.substring(dash + 1)));
    }
    List<TopicPartition> all = new ArrayList<>();
    for (TopicImage topic : controller.image().topicsByName().values()) {
      topic.partitions().keySet().forEach(p -> all.add(new TopicPartition(topic.name(), p)));
    }
    if (all.size() != 1) {
      throw d.fail("say which partition: partition=t-0");
    }
    return all.get(0);
  }

  @Override
  public void close() {
    for (ScenarioBroker b : brokers.values()) {
      if (b.up) {
        b.crash(); // closes its logs; a checkpoint now would change nothing the story showed
      }
    }
  }
}
