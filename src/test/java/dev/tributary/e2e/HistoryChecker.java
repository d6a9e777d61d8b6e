package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Records every produced record and what its produce answered, then checks the history against what
 * the cluster holds once it has healed. A small Jepsen-style checker for one topic.
 *
 * <p>Each produced record has a value unique in the run, so it can be found again anywhere. Its
 * outcome:
 *
 * <ul>
 *   <li>{@link Outcome#OK}: acknowledged, with its partition and offset.
 *   <li>{@link Outcome#FAILED}: definitely not appended: the connection was refused (nothing was
 *       sent), or the answer's {@code error_code} is one of {@link #DEFINITE_ERROR_CODES}, each of
 *       which the broker raises before it appends anything.
 *   <li>{@link Outcome#INDETERMINATE}: anything else: a timeout, a connection error after
 *       connecting, a 5xx or an error the record may have been appended before (e.g. {@code
 *       acks=all} timing out, a leader resigning while the request waited, a forwarded request
 *       whose leader did not answer). Such a record may or may not be found.
 * </ul>
 *
 * <p>{@link #check} takes {@link View}s: what each copy of the topic holds, per partition, offset →
 * value: the leader's (read through the API) and each replica's own log (read from its files; see
 * {@link ReplicaLogs}). It reports, as {@link Violation}s:
 *
 * <ol>
 *   <li>{@link Kind#LOST}: an acknowledged record is not at its acknowledged partition and offset
 *       in some view.
 *   <li>{@link Kind#FAILED_VISIBLE}: a record of a definitely failed produce is in some view.
 *   <li>{@link Kind#ORDER}: per partition, a record acknowledged before another was sent has the
 *       larger offset.
 *   <li>{@link Kind#OFFSET_CONFLICT}: two views hold different values at one offset (one value per
 *       offset), and {@link Kind#OFFSETS_NOT_INCREASING}: a view repeats or reorders offsets.
 *   <li>{@link Kind#DUPLICATE}: a value at two places in one view; {@link Kind#UNKNOWN_VALUE}: a
 *       value no produce sent; {@link Kind#MISPLACED}: a record sent to one partition found in
 *       another.
 * </ol>
 *
 * Thread safe for recording; {@link #check} works on a snapshot.
 */
final class HistoryChecker {
  /**
   * Error codes (docs/api.md) refused before any append. 50308 NOT_ENOUGH_REPLICAS (fewer in-sync
   * replicas than {@code min.insync.replicas}, checked before the append, as Kafka does; its
   * after-append sibling 50309 is indeterminate); 50304 the partition is offline; and the request
   * validations: 40001-40003 malformed, 40401/40402 unknown topic or partition, 41301 record too
   * large, 41501 content type, 42201/42202 invalid topic or config.
   */
  static final Set<Integer> DEFINITE_ERROR_CODES =
      Set.of(50308, 50304, 40001, 40002, 40003, 40401, 40402, 41301, 41501, 42201, 42202);

  static final int NOT_ENOUGH_REPLICAS = 50308;

  enum Outcome {
    OK,
    FAILED,
    INDETERMINATE
  }

  /**
   * One produced record.
   *
   * @param sentPartition the partition it was sent to, or -1 when the broker chose (by key)
   * @param partition, offset where it was acknowledged ({@link Outcome#OK} only; else -1)
   * @param errorCode the {@code error_code} answered for it, or 0 (none, or no answer)
   * @param detail what happened, for reports
   */
  record Op(
      long id,
      String key,
      String value,
      int sentPartition,
      Outcome outcome,
      int partition,
      long offset,
      int errorCode,
      String detail,
      long sentNanos,
      long doneNanos) {}

  /** One record of a view. */
  record Entry(long offset, String value) {}

  /**
   * What one copy holds: partition → its records in the order read, for the partitions it hosts
   * only.
   */
  record View(String name, Map<Integer, List<Entry>> partitions) {}

  enum Kind {
    LOST,
    FAILED_VISIBLE,
    ORDER,
    OFFSET_CONFLICT,
    OFFSETS_NOT_INCREASING,
    DUPLICATE,
    UNKNOWN_VALUE,
    MISPLACED
  }

  record Violation(Kind kind, String detail) {
    @Override
    public String toString() {
      return kind + ": " + detail;
    }
  }

  /** What {@link #check} found. */
  record Result(List<Violation> violations, String summary) {
    List<Violation> of(Kind kind) {
      return violations.stream().filter(v -> v.kind() == kind).toList();
    }

    /** Fails with the summary and the first violations of each kind. */
    void assertNoViolations() {
      assertThat(violations).as(() -> summary + "\n" + firstOfEachKind(20)).isEmpty();
    }

    String firstOfEachKind(int perKind) {
      StringBuilder text = new StringBuilder();
      Map<Kind, List<Violation>> byKind =
          violations.stream()
              .collect(
                  Collectors.groupingBy(
                      Violation::kind, () -> new EnumMap<>(Kind.class), Collectors.toList()));
      byKind.forEach(
          (kind, list) -> {
            text.append(kind).append(" (").append(list.size()).append("):\n");
            list.stream()
                .limit(perKind)
                .forEach(v -> text.append("  ").append(v.detail()).append('\n'));
          });
      return text.toString();
    }
  }

  private final String name;
  private final JsonMapper json = JsonMapper.builder().build();
  private final AtomicLong ids = new AtomicLong();
  private final List<Op> ops = new ArrayList<>();

  /**
   * @param name the history's name (the topic), the prefix of every value it hands out
   */
  HistoryChecker(String name) {
    this.name = name;
  }

  /** A value no other record of this run has. */
  String nextValue() {
    return name + "-" + ids.incrementAndGet();
  }

  /**
   * Records the answer to a produce of {@code values} (with {@code keys}) sent at {@code
   * sentNanos}.
   */
  void record(
      List<String> keys,
      List<String> values,
      int sentPartition,
      long sentNanos,
      HttpResponse<String> answer) {
    long doneNanos = System.nanoTime();
    JsonNode body;
    try {
      body = json.readTree(answer.body());
    } catch (RuntimeException e) {
      body = null;
    }
    List<Op> recorded = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      if (answer.statusCode() == 200
          && body != null
          && body.path("offsets").size() == values.size()) {
        JsonNode o = body.path("offsets").get(i);
        if (o.path("error_code").isNull() || o.path("error_code").isMissingNode()) {
          recorded.add(
              new Op(
                  0,
                  keys.get(i),
                  values.get(i),
                  sentPartition,
                  Outcome.OK,
                  o.path("partition").asInt(),
                  o.path("offset").asLong(),
                  0,
                  "acknowledged",
                  sentNanos,
                  doneNanos));
        } else {
          int code = o.path("error_code").asInt();
          recorded.add(
              byCode(
                  keys.get(i),
                  values.get(i),
                  sentPartition,
                  code,
                  "200, record error " + code + " " + o.path("error").asString(),
                  sentNanos,
                  doneNanos));
        }
      } else {
        int code = body == null ? 0 : body.path("error_code").asInt(0);
        String detail =
            answer.statusCode()
                + " "
                + (body == null
                    ? abbreviate(answer.body())
                    : code + " " + abbreviate(body.path("message").asString()));
        recorded.add(
            code == 0
                ? new Op(
                    0,
                    keys.get(i),
                    values.get(i),
                    sentPartition,
                    Outcome.INDETERMINATE,
                    -1,
                    -1,
                    0,
                    detail,
                    sentNanos,
                    doneNanos)
                : byCode(
                    keys.get(i), values.get(i), sentPartition, code, detail, sentNanos, doneNanos));
      }
    }
    add(recorded);
  }

  /** Records a produce that got no answer. */
  void record(
      List<String> keys,
      List<String> values,
      int sentPartition,
      long sentNanos,
      Throwable failure) {
    long doneNanos = System.nanoTime();
    boolean notSent =
        failure instanceof ConnectException || failure instanceof HttpConnectTimeoutException;
    List<Op> recorded = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      recorded.add(
          new Op(
              0,
              keys.get(i),
              values.get(i),
              sentPartition,
              notSent ? Outcome.FAILED : Outcome.INDETERMINATE,
              -1,
              -1,
              0,
              (notSent ? "not sent: " : "no answer: ") + failure,
              sentNanos,
              doneNanos));
    }
    add(recorded);
  }

  private Op byCode(
      String key, String value, int sentPartition, int code, String detail, long sent, long done) {
    Outcome outcome = DEFINITE_ERROR_CODES.contains(code) ? Outcome.FAILED : Outcome.INDETERMINATE;
    return new Op(0, key, value, sentPartition, outcome, -1, -1, code, detail, sent, done);
  }

  private synchronized void add(List<Op> recorded) {
    for (Op op : recorded) {
      ops.add(
          new Op(
              ops.size(),
              op.key(),
              op.value(),
              op.sentPartition(),
              op.outcome(),
              op.partition(),
              op.offset(),
              op.errorCode(),
              op.detail(),
              op.sentNanos(),
              op.doneNanos()));
    }
  }

  synchronized List<Op> ops() {
    return List.copyOf(ops);
  }

  /**
   * Acknowledged records sent at or after {@code nanos}, to {@code partition} (or anywhere when it
   * is -1).
   */
  long acknowledgedSentAfter(long nanos, int partition) {
    return ops().stream()
        .filter(
            op ->
                op.outcome() == Outcome.OK
                    && op.sentNanos() >= nanos
                    && (partition < 0 || op.partition() == partition))
        .count();
  }

  /** Records whose answer carried {@code errorCode}, sent at or after {@code nanos}. */
  long answeredSentAfter(long nanos, int errorCode) {
    return ops().stream()
        .filter(op -> op.errorCode() == errorCode && op.sentNanos() >= nanos)
        .count();
  }

  /**
   * Checks the history against the views; the first view is the one the API serves (the leaders').
   */
  Result check(List<View> views) {
    List<Op> history = ops();
    List<Violation> violations = new ArrayList<>();
    Map<String, Op> byValue = new HashMap<>();
    history.forEach(op -> byValue.put(op.value(), op));

    // Per view: offsets strictly increasing, every value known, sent where it was found, and found
    // once.
    List<Map<String, Entry>> located =
        new ArrayList<>(); // per view: value -> where it is (first occurrence)
    List<Map<String, Integer>> partitionOf = new ArrayList<>(); // per view: value -> its partition
    for (View view : views) {
      Map<String, Entry> at = new HashMap<>();
      Map<String, Integer> in = new HashMap<>();
      view.partitions()
          .forEach(
              (partition, entries) -> {
                long previous = -1;
                for (Entry entry : entries) {
                  if (entry.offset() <= previous) {
                    violations.add(
                        new Violation(
                            Kind.OFFSETS_NOT_INCREASING,
                            view.name()
                                + " p"
                                + partition
                                + ": offset "
                                + entry.offset()
                                + " after "
                                + previous));
                  }
                  previous = entry.offset();
                  Op op = byValue.get(entry.value());
                  if (op == null) {
                    violations.add(
                        new Violation(
                            Kind.UNKNOWN_VALUE,
                            view.name()
                                + " p"
                                + partition
                                + "@"
                                + entry.offset()
                                + " holds '"
                                + entry.value()
                                + "', never sent"));
                  } else if (op.sentPartition() >= 0 && op.sentPartition() != partition) {
                    violations.add(
                        new Violation(
                            Kind.MISPLACED,
                            view.name()
                                + ": '"
                                + entry.value()
                                + "' sent to p"
                                + op.sentPartition()
                                + " found in p"
                                + partition));
                  }
                  Entry first = at.putIfAbsent(entry.value(), entry);
                  if (first != null) {
                    violations.add(
                        new Violation(
                            Kind.DUPLICATE,
                            view.name()
                                + ": '"
                                + entry.value()
                                + "' at p"
                                + in.get(entry.value())
                                + "@"
                                + first.offset()
                                + " and again at p"
                                + partition
                                + "@"
                                + entry.offset()));
                  } else {
                    in.put(entry.value(), partition);
                  }
                }
              });
      located.add(at);
      partitionOf.add(in);
    }

    // One value per offset across views.
    Map<Integer, Map<Long, Map<String, String>>> valuesAt =
        new TreeMap<>(); // partition -> offset -> value -> views
    for (View view : views) {
      view.partitions()
          .forEach(
              (partition, entries) -> {
                for (Entry entry : entries) {
                  valuesAt
                      .computeIfAbsent(partition, p -> new TreeMap<>())
                      .computeIfAbsent(entry.offset(), o -> new TreeMap<>())
                      .merge(entry.value(), view.name(), (a, b) -> a + ", " + b);
                }
              });
    }
    valuesAt.forEach(
        (partition, offsets) ->
            offsets.forEach(
                (offset, values) -> {
                  if (values.size() > 1) {
                    violations.add(
                        new Violation(
                            Kind.OFFSET_CONFLICT,
                            "p" + partition + "@" + offset + " holds " + values));
                  }
                }));

    // Acknowledged: at its partition and offset in every view. Definitely failed: in none.
    int foundIndeterminate = 0;
    for (Op op : history) {
      switch (op.outcome()) {
        case OK -> {
          for (int v = 0; v < views.size(); v++) {
            if (!views.get(v).partitions().containsKey(op.partition())) {
              continue; // this copy does not host the partition (a broker outside its replicas)
            }
            Entry entry = located.get(v).get(op.value());
            Integer partition = partitionOf.get(v).get(op.value());
            if (entry == null || partition != op.partition() || entry.offset() != op.offset()) {
              String there = valueAt(views.get(v), op.partition(), op.offset());
              violations.add(
                  new Violation(
                      Kind.LOST,
                      views.get(v).name()
                          + ": '"
                          + op.value()
                          + "' acknowledged at p"
                          + op.partition()
                          + "@"
                          + op.offset()
                          + (entry == null
                              ? " is missing"
                              : " is at p" + partition + "@" + entry.offset())
                          + (there == null ? "" : "; that offset holds '" + there + "'")));
            }
          }
        }
        case FAILED -> {
          for (int v = 0; v < views.size(); v++) {
            Entry entry = located.get(v).get(op.value());
            if (entry != null) {
              violations.add(
                  new Violation(
                      Kind.FAILED_VISIBLE,
                      views.get(v).name()
                          + ": '"
                          + op.value()
                          + "' ("
                          + op.detail()
                          + ") is at p"
                          + partitionOf.get(v).get(op.value())
                          + "@"
                          + entry.offset()));
            }
          }
        }
        case INDETERMINATE -> {
          if (!views.isEmpty() && located.get(0).containsKey(op.value())) {
            foundIndeterminate++;
          }
        }
      }
    }

    violations.addAll(orderViolations(history));

    Map<Outcome, Long> counts =
        history.stream()
            .collect(
                Collectors.groupingBy(
                    Op::outcome, () -> new EnumMap<>(Outcome.class), Collectors.counting()));
    Map<Integer, Long> failedCodes =
        history.stream()
            .filter(op -> op.outcome() != Outcome.OK)
            .collect(Collectors.groupingBy(Op::errorCode, TreeMap::new, Collectors.counting()));
    String summary =
        "history "
            + name
            + ": "
            + history.size()
            + " records: "
            + counts.getOrDefault(Outcome.OK, 0L)
            + " acknowledged, "
            + counts.getOrDefault(Outcome.FAILED, 0L)
            + " definitely failed, "
            + counts.getOrDefault(Outcome.INDETERMINATE, 0L)
            + " indeterminate ("
            + foundIndeterminate
            + " of them found); not-OK by error_code (0 = no answer or not sent): "
            + failedCodes
            + "; views: "
            + views.stream()
                .map(
                    v ->
                        v.name()
                            + " "
                            + v.partitions().values().stream().mapToInt(List::size).sum())
                .collect(Collectors.joining(", "))
            + " records; "
            + violations.size()
            + " violation(s)";
    return new Result(List.copyOf(violations), summary);
  }

  /**
   * Real-time order per partition: if A was acknowledged before B was sent, and both on one
   * partition, A's offset is smaller. A sweep: B by send time, A by acknowledgement time, keeping
   * the largest offset acknowledged so far.
   */
  private static List<Violation> orderViolations(List<Op> history) {
    List<Violation> violations = new ArrayList<>();
    Map<Integer, List<Op>> acknowledged =
        history.stream()
            .filter(op -> op.outcome() == Outcome.OK)
            .collect(Collectors.groupingBy(Op::partition));
    acknowledged.forEach(
        (partition, list) -> {
          List<Op> bySent = list.stream().sorted(Comparator.comparingLong(Op::sentNanos)).toList();
          List<Op> byDone = list.stream().sorted(Comparator.comparingLong(Op::doneNanos)).toList();
          int a = 0;
          Op latest = null;
          for (Op b : bySent) {
            while (a < byDone.size() && byDone.get(a).doneNanos() < b.sentNanos()) {
              Op done = byDone.get(a++);
              if (latest == null || done.offset() > latest.offset()) {
                latest = done;
              }
            }
            if (latest != null && latest.offset() >= b.offset()) {
              violations.add(
                  new Violation(
                      Kind.ORDER,
                      "p"
                          + partition
                          + ": '"
                          + latest.value()
                          + "' acknowledged at "
                          + latest.offset()
                          + " before '"
                          + b.value()
                          + "' was sent, which got offset "
                          + b.offset()));
            }
          }
        });
    return violations;
  }

  private static String valueAt(View view, int partition, long offset) {
    for (Entry entry : view.partitions().getOrDefault(partition, List.of())) {
      if (entry.offset() == offset) {
        return entry.value();
      }
    }
    return null;
  }

  private static String abbreviate(String text) {
    return text == null ? "" : text.length() <= 160 ? text : text.substring(0, 160) + "...";
  }
}
