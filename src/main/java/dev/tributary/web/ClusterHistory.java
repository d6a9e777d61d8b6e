package dev.tributary.web;

import java.io.ByteArrayOutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * The cluster's recent past as this broker saw it, so the dashboard can rewind: every view that
 * differs from the one before is kept as a frame (its JSON, deflated), and the timeline's events
 * once each with the time they were first seen. {@link #at} rebuilds the view as it was at any
 * moment kept: the last frame recorded at or before it, with the events seen by then.
 *
 * <p>Every broker records its own copy (the live view polls its peers whether or not a page is
 * open), so the history survives the death of any one broker; it lives in memory and starts empty
 * when the broker starts. Bounded twice: frames older than {@code maxAgeMs} go, and the oldest go
 * while the frames take more than {@code maxBytes}; the newest frame always stays.
 *
 * <p>A frame holds the view without its {@code events} and {@code group_events}: they are append
 * only and would repeat in every frame (they are most of an idle cluster's view), so they are kept
 * once, in {@link #events} and {@link #groupEvents}.
 *
 * <p>Concurrency: serialized on this object; recording is one thread, reads come from requests.
 */
final class ClusterHistory {
  /** How many of each kind of event a rebuilt view carries, as the live view does. */
  static final int EVENTS_PER_VIEW = dev.tributary.metadata.ClusterEvents.MAX_RETAINED;

  /** Events kept beyond the ones the oldest frame needs: a cap when events come in a storm. */
  static final int MAX_EVENTS = 20_000;

  /** How often the charted numbers are sampled ({@link HistorySeries}). */
  static final long SERIES_SAMPLE_MS = 1_000;

  /**
   * One recorded view. Invariant: frames are in increasing {@code atMs}; {@code deflated} is the
   * view's JSON with empty event lists.
   */
  private record Frame(long atMs, byte[] deflated, int jsonBytes) {}

  /** An event and when this broker first saw it; ordered by {@code seenMs}. */
  private record Seen<T>(long seenMs, T event) {}

  /**
   * The view as it was.
   *
   * @param recordedAtMs when the frame was recorded: the view did not change between then and the
   *     moment asked for
   * @param stateJson the view's JSON with empty {@code events} and {@code group_events}
   * @param events the timeline as it stood, oldest first (at most {@link #EVENTS_PER_VIEW})
   * @param groupEvents the group events as they stood, oldest first (at most {@link
   *     #EVENTS_PER_VIEW})
   */
  record Past(
      long recordedAtMs,
      byte[] stateJson,
      List<ClusterSnapshot.EventRow> events,
      List<ClusterSnapshot.GroupEventRow> groupEvents) {}

  /**
   * What is kept.
   *
   * @param earliestMs the first frame's time, -1 when none is kept yet
   * @param latestMs the newest frame's time, -1 when none
   * @param jsonBytes the frames' JSON before deflating
   * @param storedBytes the frames' deflated bytes: what the bound counts
   */
  record Extent(
      long earliestMs,
      long latestMs,
      int frames,
      long jsonBytes,
      long storedBytes,
      int events,
      long maxBytes,
      long maxAgeMs) {}

  private final Function<ClusterSnapshot, byte[]> encoder;
  private final long maxBytes;
  private final long maxAgeMs;
  private final List<Frame> frames = new ArrayList<>();
  private final Deque<Seen<ClusterSnapshot.EventRow>> events = new ArrayDeque<>();
  private final Deque<Seen<ClusterSnapshot.GroupEventRow>> groupEvents = new ArrayDeque<>();
  private final Set<ClusterSnapshot.GroupEventRow> groupEventsKept = new HashSet<>();
  private final Deflater deflater = new Deflater(Deflater.BEST_SPEED);
  private final HistorySeries series = new HistorySeries(SERIES_SAMPLE_MS);

  /** The last view recorded, without its events: what the next one is compared with. */
  private ClusterSnapshot last;

  /** The live view's events at the last recording: new ones are found against these. */
  private List<ClusterSnapshot.EventRow> lastSeenEvents = List.of();

  private long storedBytes;
  private long jsonBytes;

  /**
   * @param encoder a view to its JSON bytes
   * @param maxBytes the most deflated bytes the frames may take (at least one frame is kept)
   * @param maxAgeMs how long a frame is kept
   */
  ClusterHistory(Function<ClusterSnapshot, byte[]> encoder, long maxBytes, long maxAgeMs) {
    if (maxBytes <= 0 || maxAgeMs <= 0) {
      throw new IllegalArgumentException("history bounds must be positive");
    }
    this.encoder = encoder;
    this.maxBytes = maxBytes;
    this.maxAgeMs = maxAgeMs;
  }

  /**
   * Records the view as of {@code nowMs}: its new events, and a frame if anything but the clock and
   * the events changed since the last one.
   */
  synchronized void record(long nowMs, ClusterSnapshot view) {
    if (!frames.isEmpty() && nowMs < frames.get(frames.size() - 1).atMs()) {
      nowMs = frames.get(frames.size() - 1).atMs(); // the wall clock stepped back: keep order
    }
    List<ClusterSnapshot.EventRow> newEvents =
        last == null ? view.events() : DashboardMessages.newEvents(lastSeenEvents, view.events());
    for (ClusterSnapshot.EventRow e : newEvents) {
      events.addLast(new Seen<>(nowMs, e));
    }
    for (ClusterSnapshot.GroupEventRow e : view.groupEvents()) {
      if (groupEventsKept.add(e)) {
        groupEvents.addLast(new Seen<>(nowMs, e));
      }
    }
    ClusterSnapshot stripped = withoutEvents(view);
    if (last == null || DashboardMessages.between(last, stripped).isPresent()) {
      byte[] json = encoder.apply(stripped);
      byte[] deflated = deflate(json);
      frames.add(new Frame(nowMs, deflated, json.length));
      storedBytes += deflated.length;
      jsonBytes += json.length;
      last = stripped;
    }
    lastSeenEvents = view.events();
    series.record(nowMs, view);
    evict(nowMs);
  }

  /**
   * The view as it was at {@code atMs}: empty when that is before the first frame kept (or nothing
   * is). A moment after the newest frame gets the newest: nothing changed since.
   */
  synchronized Optional<Past> at(long atMs) {
    int index = lastFrameAtOrBefore(atMs);
    if (index < 0) {
      return Optional.empty();
    }
    Frame frame = frames.get(index);
    return Optional.of(
        new Past(
            frame.atMs(),
            inflate(frame.deflated(), frame.jsonBytes()),
            seenBy(events, atMs),
            seenBy(groupEvents, atMs)));
  }

  /** The charted numbers from {@code fromMs} on. */
  synchronized HistorySeries.Columns series(long fromMs) {
    return series.since(fromMs);
  }

  synchronized Extent extent() {
    return new Extent(
        frames.isEmpty() ? -1 : frames.get(0).atMs(),
        frames.isEmpty() ? -1 : frames.get(frames.size() - 1).atMs(),
        frames.size(),
        jsonBytes,
        storedBytes,
        events.size() + groupEvents.size(),
        maxBytes,
        maxAgeMs);
  }

  private int lastFrameAtOrBefore(long atMs) {
    int lo = 0;
    int hi = frames.size() - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (frames.get(mid).atMs() <= atMs) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** The newest {@link #EVENTS_PER_VIEW} events seen at or before {@code atMs}, oldest first. */
  private static <T> List<T> seenBy(Deque<Seen<T>> seen, long atMs) {
    List<T> newestFirst = new ArrayList<>();
    var it = seen.descendingIterator();
    while (it.hasNext() && newestFirst.size() < EVENTS_PER_VIEW) {
      Seen<T> s = it.next();
      if (s.seenMs() <= atMs) {
        newestFirst.add(s.event());
      }
    }
    Collections.reverse(newestFirst);
    return newestFirst;
  }

  private void evict(long nowMs) {
    int drop = 0;
    long bytes = storedBytes;
    while (frames.size() - drop > 1
        && (bytes > maxBytes || nowMs - frames.get(drop).atMs() > maxAgeMs)) {
      bytes -= frames.get(drop).deflated().length;
      jsonBytes -= frames.get(drop).jsonBytes();
      drop++;
    }
    if (drop > 0) {
      frames.subList(0, drop).clear();
      storedBytes = bytes;
    }
    // Events seen before the oldest frame are kept only as far as that frame's view needs them.
    long oldestMs = frames.get(0).atMs();
    series.evictBefore(Math.max(oldestMs, nowMs - maxAgeMs));
    trim(events, oldestMs, null);
    trim(groupEvents, oldestMs, groupEventsKept);
  }

  private static <T> void trim(Deque<Seen<T>> seen, long oldestFrameMs, Set<T> index) {
    int before = 0;
    for (Seen<T> s : seen) {
      if (s.seenMs() > oldestFrameMs) {
        break;
      }
      before++;
    }
    int surplus = Math.max(before - EVENTS_PER_VIEW, seen.size() - MAX_EVENTS);
    for (int i = 0; i < surplus; i++) {
      Seen<T> dropped = seen.removeFirst();
      if (index != null) {
        index.remove(dropped.event());
      }
    }
  }

  private static ClusterSnapshot withoutEvents(ClusterSnapshot view) {
    return new ClusterSnapshot(
        view.scope(),
        view.header(),
        view.brokers(),
        view.partitions(),
        view.topics(),
        List.of(),
        view.groups(),
        List.of());
  }

  private byte[] deflate(byte[] json) {
    deflater.reset();
    deflater.setInput(json);
    deflater.finish();
    ByteArrayOutputStream out = new ByteArrayOutputStream(json.length / 4 + 64);
    byte[] chunk = new byte[8192];
    while (!deflater.finished()) {
      int n = deflater.deflate(chunk);
      out.write(chunk, 0, n);
    }
    return out.toByteArray();
  }

  private static byte[] inflate(byte[] deflated, int jsonBytes) {
    Inflater inflater = new Inflater();
    try {
      inflater.setInput(deflated);
      byte[] json = new byte[jsonBytes];
      int n = 0;
      while (n < jsonBytes && !inflater.finished()) {
        int inflated = inflater.inflate(json, n, jsonBytes - n);
        if (inflated == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
          break;
        }
        n += inflated;
      }
      if (n != jsonBytes) {
        throw new IllegalStateException("a history frame inflated to " + n + " of " + jsonBytes);
      }
      return json;
    } catch (DataFormatException e) {
      throw new IllegalStateException("a history frame does not inflate", e);
    } finally {
      inflater.end();
    }
  }
}
