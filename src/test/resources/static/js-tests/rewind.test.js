// Unit tests of the rewind scrubber's arithmetic (rewind-model.js).
import * as R from '/js/rewind-model.js';
import { createSuite, eq } from '/js-tests/harness.js';

const { test, run } = createSuite();
const event = (t, type, text = type) => ({ offset: t, timestamp_ms: t, type, text });

test('playing moves the moment at the chosen speed and stops at the present', () => {
  eq(R.advance(10_000, 100, 1, 99_000), 10_100);
  eq(R.advance(10_000, 100, 10, 99_000), 11_000);
  eq(R.advance(10_000, 1000, 0.1, 99_000), 10_100);
  eq(R.advance(98_900, 1000, 2, 99_000), 99_000, 'never past the present');
  eq(R.advance(10_000, -50, 1, 99_000), 10_000, 'a clock that stepped back does not rewind');
});

test('a moment is clamped into the span kept', () => {
  eq(R.clampMoment(5, 100, 200), 100);
  eq(R.clampMoment(150, 100, 200), 150);
  eq(R.clampMoment(500, 100, 200), 200);
});

test('the last failover is the newest fencing or controller election, replayed from 5 s before it', () => {
  const events = [event(1_000, 'broker_fenced', 'broker 1 fenced'), event(20_000, 'leader_changed'),
    event(30_000, 'broker_fenced', 'broker 2 fenced'), event(31_000, 'isr_shrink')];
  const found = R.lastFailover(events, 0);
  eq(found.event.text, 'broker 2 fenced');
  eq(found.fromMs, 30_000 - R.REPLAY_LEAD_MS);
  eq(R.lastFailover(events, 27_000).fromMs, 27_000, 'never before the history kept');
  eq(R.lastFailover(events, 31_000), null, 'older than the history kept: none');
  eq(R.lastFailover([event(5, 'topic_created')], 0), null);
  eq(R.lastFailover([event(9_000, 'controller_elected')], 0).fromMs, 4_000);
});

test('how far back a moment is reads the way a person says it', () => {
  eq(R.describeAgo(100_000, 100_050), 'now');
  eq(R.describeAgo(87_600, 100_000), '12.4 s ago');
  eq(R.describeAgo(100_000 - 185_000, 100_000), '3 min 05 s ago');
});

test('speeds come from the select as text and snap to the ones offered', () => {
  eq(R.pickSpeed('10'), 10);
  eq(R.pickSpeed('0.1'), 0.1);
  eq(R.pickSpeed('3'), 2);
  eq(R.pickSpeed('x'), 1);
  eq(R.SPEEDS[0], 0.1);
  eq(R.SPEEDS[R.SPEEDS.length - 1], 10);
});

test('the scrubber marks fencings, unfencings, elections and truncations inside the span', () => {
  const events = [event(50, 'broker_fenced'), event(150, 'broker_fenced'), event(160, 'leader_changed'),
    event(175, 'replica_truncated'), event(300, 'broker_unfenced')];
  eq(R.marks(events, 100, 200), [{ t: 150, type: 'broker_fenced', pct: 50 },
    { t: 175, type: 'replica_truncated', pct: 75 }]);
  eq(R.marks(events, 200, 200), [], 'an empty span has no marks');
});

test('a chart tops out at a round number above its largest value', () => {
  eq(R.niceMax([0, 3, null]), 5);
  eq(R.niceMax([]), 1);
  eq(R.niceMax([12]), 20);
  eq(R.niceMax([4_200]), 5_000);
  eq(R.niceMax([100]), 100);
});

test('a chart line spans its time range and breaks where a value is missing', () => {
  eq(R.chartPath([0, 50, 100], [0, 5, 10], 0, 100, 10, 200, 50, 5), 'M0.0,45.0 L100.0,25.0 L200.0,5.0');
  eq(R.chartPath([0, 50, 100], [1, null, 1], 0, 100, 1, 100, 10, 0), 'M0.0,0.0 M100.0,0.0');
  eq(R.chartPath([], [], 0, 0, 1, 100, 10, 0), '');
});

run();
