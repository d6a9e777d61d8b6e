package dev.tributary.group;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.CoordinatorApi.DescribeResult;
import dev.tributary.group.CoordinatorApi.GroupDescription;
import dev.tributary.group.CoordinatorApi.JoinRequest;
import dev.tributary.group.CoordinatorApi.JoinResult;
import dev.tributary.group.CoordinatorApi.JoinedMember;
import dev.tributary.group.CoordinatorApi.MemberDescription;
import dev.tributary.group.CoordinatorApi.OffsetFetchResult;
import dev.tributary.group.CoordinatorApi.SyncRequest;
import dev.tributary.group.CoordinatorApi.SyncResult;
import dev.tributary.group.InMemoryCoordinatorLog.Mode;
import dev.tributary.scenario.Directive;
import dev.tributary.scenario.ScenarioHandler;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The commands of the group scenarios ({@code src/test/resources/scenarios/group/*.txt}): members
 * named by letters talk to a real {@link GroupCoordinator} through a {@link CoordinatorHarness}
 * (one partition of {@code __consumer_offsets} in an {@link InMemoryCoordinatorLog}, a manual
 * clock; group.initial.rebalance.delay.ms=3000, session timeout 10000 ms and rebalance timeout
 * 20000 ms unless a join says otherwise, offsets.retention 7 days checked every 10 minutes).
 *
 * <pre>
 *   join member=a [assignors=(range, sticky)] [session-ms=N] [rebalance-ms=N]
 *                                 join with a's member id (none yet: KIP-394's MEMBER_ID_REQUIRED,
 *                                 then join again with the id handed out, as clients do)
 *   sync member=a [generation=N]  sync; the leader's input lines are its assignment, one member a
 *   a: orders-0 orders-1          line ("b:" for nothing); the generation is a's last join's
 *   heartbeat member=a [generation=N]
 *   leave member=a [reason=...]
 *   commit [member=a] partition=orders-0 offset=42 [generation=N]
 *                                 without a member: a standalone consumer's commit (generation -1)
 *   tick ms=N                     advance the clock, running the timers that fall due
 *   fail-log [error=not-leader|timeout]   appends to the log fail from now on
 *   heal-log                      appends commit again
 *   resign                        this coordinator stops leading the partition
 *   load                          another broker's coordinator leads it in the next epoch, loading
 *                                 the groups from the log
 *   records                       the log's records
 *   state                         the group as the coordinator describes it
 * </pre>
 *
 * Every command but {@code records} prints what happened while it ran, in order: the answers
 * members got ({@code a ← join: ...}) and the group events the coordinator recorded ({@code event:
 * ...}); then the state: the group's state, generation, leader and protocol, each member with its
 * assignment and the request it is still waiting on, and the committed offsets. Member ids print as
 * member names. A member answered UNKNOWN_MEMBER_ID, or that left, forgets its id and joins again
 * as a new member (printed {@code a#2}).
 */
final class GroupScenario implements ScenarioHandler {
  private final CoordinatorHarness h = CoordinatorHarness.stepwise(3_000).lead();
  private final long startMs = h.clock.milliseconds();

  /** A member's id as its client holds it now (absent: it joins as a new member). */
  private final Map<String, String> memberIds = new HashMap<>();

  /** Every member id handed out, to the name it prints as. */
  private final Map<String, String> names = new LinkedHashMap<>();

  /** A member's generation, from its last successful join. */
  private final Map<String, Integer> generations = new HashMap<>();

  /** What each member is waiting for: "join" or "sync". */
  private final Map<String, String> waiting = new TreeMap<>();

  /** How many ids each name has been handed out (a member that rejoins as new gets another). */
  private final Map<String, Integer> incarnations = new HashMap<>();

  /** What the current command printed so far: answers and events, in the order they happened. */
  private final List<String> lines = new ArrayList<>();

  private GroupCoordinator eventsOf;
  private GroupEvent lastEvent;

  @Override
  public String run(Directive d) {
    switch (d.command()) {
      case "join" -> join(d);
      case "sync" -> sync(d);
      case "heartbeat" -> heartbeat(d);
      case "leave" -> leave(d);
      case "commit" -> commit(d);
      case "tick" -> {
        long ms = d.longArg("ms");
        say("t=" + (h.clock.milliseconds() + ms - startMs));
        h.clock.advance(ms);
      }
      case "fail-log" ->
          h.log.mode(
              switch (d.arg("error", "not-leader")) {
                case "not-leader" -> Mode.NOT_LEADER;
                case "timeout" -> Mode.TIMEOUT;
                default -> throw d.fail("error is not-leader or timeout");
              });
      case "heal-log" -> h.log.mode(Mode.COMMIT);
      case "resign" -> h.coordinator.onResign(CoordinatorHarness.PARTITION);
      case "load" -> {
        h.coordinator.shutdown();
        h.coordinator = h.newCoordinator();
        h.lead();
      }
      case "records" -> {
        return records();
      }
      case "state" -> {}
      default -> throw d.fail("unknown command");
    }
    h.drain(); // deliver the answers: after the events of what caused them
    flushEvents();
    StringBuilder out = new StringBuilder();
    lines.forEach(l -> out.append(l).append('\n'));
    lines.clear();
    return out.append(state()).toString();
  }

  /**
   * Prints an answer as it arrives, after the events recorded before it. Answers are delivered
   * after each request and each timer ({@link CoordinatorHarness#stepwise}), so answers and events
   * print in the order they happened, also within one tick.
   */
  private void say(String line) {
    flushEvents();
    lines.add(line);
  }

  /**
   * Prints the coordinator's events after the last one printed (its history keeps the last 200).
   */
  private void flushEvents() {
    List<GroupEvent> events = h.coordinator.recentEvents();
    if (eventsOf != h.coordinator) {
      eventsOf = h.coordinator; // another coordinator: its own history
      lastEvent = null;
    }
    int next = 0;
    for (int i = events.size() - 1; i >= 0 && lastEvent != null; i--) {
      if (events.get(i) == lastEvent) {
        next = i + 1;
        break;
      }
    }
    for (GroupEvent e : events.subList(next, events.size())) {
      lines.add("event: " + named(e.description()));
      lastEvent = e;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // the members' requests

  private void join(Directive d) {
    String name = d.arg("member");
    List<String> assignors = d.listArg("assignors");
    int sessionMs = d.intArg("session-ms", CoordinatorHarness.SESSION_MS);
    int rebalanceMs = d.intArg("rebalance-ms", CoordinatorHarness.REBALANCE_MS);
    String[] protocols =
        assignors.isEmpty() ? new String[] {"range"} : assignors.toArray(String[]::new);
    sendJoin(name, memberIds.getOrDefault(name, ""), sessionMs, rebalanceMs, protocols);
  }

  private void sendJoin(
      String name, String memberId, int sessionMs, int rebalanceMs, String[] protocols) {
    waiting.put(name, "join");
    JoinRequest request =
        new JoinRequest(
            CoordinatorHarness.GROUP,
            memberId,
            name,
            "/127.0.0.1",
            sessionMs,
            rebalanceMs,
            ConsumerProtocol.PROTOCOL_TYPE,
            CoordinatorHarness.protocols(protocols),
            "");
    h.coordinator
        .joinGroup(request)
        .thenAccept(
            r -> {
              waiting.remove(name);
              if (r.error() == GroupError.MEMBER_ID_REQUIRED) {
                int n = incarnations.merge(name, 1, Integer::sum);
                names.put(r.memberId(), n == 1 ? name : name + "#" + n);
                memberIds.put(name, r.memberId());
                say(name + " ← join: MEMBER_ID_REQUIRED, joins again with its new id");
                sendJoin(name, r.memberId(), sessionMs, rebalanceMs, protocols);
              } else {
                say(name + " ← join: " + joinAnswer(name, r));
              }
            });
  }

  private String joinAnswer(String name, JoinResult r) {
    if (r.error() != GroupError.NONE) {
      return error(name, r.error());
    }
    generations.put(name, r.generationId());
    String text =
        "generation "
            + r.generationId()
            + ", leader "
            + named(r.leaderId())
            + ", protocol "
            + r.protocolName();
    if (r.members().isEmpty()) {
      return text;
    }
    List<String> members =
        r.members().stream().map(JoinedMember::memberId).map(this::named).sorted().toList();
    return text + ", members " + members;
  }

  private void sync(Directive d) {
    String name = d.arg("member");
    int generation = d.intArg("generation", generations.getOrDefault(name, -1));
    Map<String, byte[]> assignments = new HashMap<>();
    for (String line : d.input()) {
      int colon = line.indexOf(':');
      if (colon < 0) {
        throw d.fail("an assignment line is 'member: topic-partition ...', not '" + line + "'");
      }
      String member = line.substring(0, colon).strip();
      List<TopicPartition> partitions = new ArrayList<>();
      for (String tp : line.substring(colon + 1).strip().split("\\s+")) {
        if (!tp.isEmpty()) {
          partitions.add(partition(d, tp));
        }
      }
      assignments.put(
          memberIds.getOrDefault(member, member), ConsumerProtocol.encodeAssignment(partitions));
    }
    waiting.put(name, "sync");
    h.coordinator
        .syncGroup(new SyncRequest(CoordinatorHarness.GROUP, id(name), generation, assignments))
        .thenAccept(
            (SyncResult r) -> {
              waiting.remove(name);
              say(
                  name
                      + " ← sync: "
                      + (r.error() == GroupError.NONE
                          ? partitions(r.assignment())
                          : error(name, r.error())));
            });
  }

  private void heartbeat(Directive d) {
    String name = d.arg("member");
    int generation = d.intArg("generation", generations.getOrDefault(name, -1));
    h.coordinator
        .heartbeat(CoordinatorHarness.GROUP, id(name), generation)
        .thenAccept(e -> say(name + " ← heartbeat: " + error(name, e)));
  }

  private void leave(Directive d) {
    String name = d.arg("member");
    h.coordinator
        .leaveGroup(CoordinatorHarness.GROUP, id(name), d.arg("reason", ""))
        .thenAccept(
            e -> {
              say(name + " ← leave: " + error(name, e));
              memberIds.remove(name); // a consumer that left joins again as a new member
            });
  }

  private void commit(Directive d) {
    String name = d.arg("member", "");
    int generation = d.intArg("generation", generations.getOrDefault(name, -1));
    TopicPartition tp = partition(d, d.arg("partition"));
    long offset = d.longArg("offset");
    String who = name.isEmpty() ? "standalone consumer" : name;
    h.coordinator
        .commitOffsets(
            CoordinatorHarness.GROUP,
            name.isEmpty() ? "" : id(name),
            generation,
            Map.of(tp, h.offset(offset)))
        .thenAccept(e -> say(who + " ← commit " + tp + "=" + offset + ": " + error(name, e)));
  }

  /** The error's name; an UNKNOWN_MEMBER_ID makes the member forget its id, as a client does. */
  private String error(String name, GroupError error) {
    if (error == GroupError.UNKNOWN_MEMBER_ID && memberIds.remove(name) != null) {
      return error + " (" + name + " will join as a new member)";
    }
    return error.toString();
  }

  private String id(String name) {
    return memberIds.getOrDefault(name, name + "-without-an-id");
  }

  private static TopicPartition partition(Directive d, String text) {
    int dash = text.lastIndexOf('-');
    try {
      return new TopicPartition(
          text.substring(0, dash), Integer.parseInt(text.substring(dash + 1)));
    } catch (RuntimeException e) {
      throw d.fail("'" + text + "' is not a topic-partition like orders-0");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // what is printed

  private String state() {
    DescribeResult described = h.now(h.coordinator.describeGroup(CoordinatorHarness.GROUP));
    if (described.error() != GroupError.NONE) {
      return "state: " + described.error() + "\n";
    }
    GroupDescription g = described.group();
    if (g.state() == GroupState.DEAD) {
      return "state: Dead (the coordinator has no such group)\n";
    }
    StringBuilder out = new StringBuilder("state: ").append(g.state().kafkaName);
    out.append(" generation=").append(g.generationId());
    out.append(" leader=").append(g.leaderId() == null ? "none" : named(g.leaderId()));
    out.append(" protocol=").append(g.protocolName().isEmpty() ? "none" : g.protocolName());
    out.append('\n');
    g.members().stream()
        .sorted(Comparator.comparing((MemberDescription m) -> named(m.memberId())))
        .forEach(
            m -> {
              String name = named(m.memberId());
              out.append("  member ").append(name).append(": ").append(partitions(m.assignment()));
              String pending = waiting.get(name);
              if (pending != null && m.memberId().equals(memberIds.get(name))) {
                out.append(", waiting for its ").append(pending).append(" answer");
              }
              out.append('\n');
            });
    OffsetFetchResult fetched = h.now(h.coordinator.fetchOffsets(CoordinatorHarness.GROUP, null));
    Map<String, Long> offsets = new TreeMap<>();
    fetched.offsets().forEach((tp, o) -> offsets.put(tp.toString(), o.offset()));
    out.append("offsets: ");
    if (offsets.isEmpty()) {
      out.append("none");
    }
    offsets.forEach((tp, o) -> out.append(tp).append('=').append(o).append(' '));
    return out.append('\n').toString();
  }

  private String records() {
    StringBuilder out = new StringBuilder();
    for (InMemoryCoordinatorLog.Stored r : h.log.records(CoordinatorHarness.PARTITION)) {
      out.append(r.offset()).append(": ");
      if (r.key() instanceof GroupRecords.OffsetKey k) {
        out.append("offset ").append(k.groupId()).append(' ').append(k.topicPartition());
        out.append(
            r.tombstone()
                ? " tombstone"
                : " = " + GroupRecords.readOffsetValue(r.value().duplicate()).offset());
      } else if (r.key() instanceof GroupRecords.GroupKey k) {
        out.append("group ").append(k.groupId());
        if (r.tombstone()) {
          out.append(" tombstone");
        } else {
          GroupRecords.StoredGroup g = GroupRecords.readGroupValue(r.value().duplicate());
          out.append(" generation=").append(g.generationId());
          out.append(" leader=").append(g.leaderId() == null ? "none" : named(g.leaderId()));
          List<String> members = new ArrayList<>();
          g.members().forEach(m -> members.add(named(m.memberId()) + partitions(m.assignment())));
          out.append(" members=").append(members.stream().sorted().toList());
        }
      }
      out.append('\n');
    }
    return out.isEmpty() ? "(empty)" : out.toString();
  }

  private static String partitions(byte[] assignment) {
    return ConsumerProtocol.decodeAssignment(assignment).stream()
        .map(TopicPartition::toString)
        .sorted()
        .toList()
        .toString();
  }

  /** {@code text} with every member id replaced by its member's name. */
  private String named(String text) {
    if (text == null) {
      return "none";
    }
    String out = text;
    for (Map.Entry<String, String> e : names.entrySet()) {
      out = out.replace(e.getKey(), e.getValue());
    }
    return out;
  }
}
