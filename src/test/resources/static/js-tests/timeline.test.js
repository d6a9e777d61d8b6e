// Unit tests of the timeline's shape (timeline.js: grouped by cause, internal topics folded) and of members by
// client id (members.js). The page writes one line per test into <pre id="results" data-passed="N"
// data-failed="M">; runTests() returns the same lines so node can run it too.
import * as T from '/js/timeline.js';
import * as M from '/js/members.js';

import { createSuite, eq } from '/js-tests/harness.js';

const { test, run } = createSuite();

// ----- fixtures: what one SIGKILL of broker 2 commits in one batch (offset 40) -----
const ev = (offset, index, causeIndex, type, topic, over = {}) => ({ offset, index, cause_index: causeIndex,
  timestamp_ms: 1_000_000 + offset, type, topic, partition: topic ? 0 : -1, broker_id: -1,
  text: `${type} ${topic ?? ''}`, reason: 'session expired', ...over });
const fencing = [
  ev(40, 0, -1, 'broker_fenced', null, { broker_id: 2 }),
  ev(40, 1, 0, 'leader_changed', 'orders'),
  ev(40, 2, 0, 'isr_shrink', 'orders'),
  ev(40, 3, 0, 'leader_changed', '__consumer_offsets'),
  ev(40, 4, 0, 'isr_shrink', '__consumer_offsets'),
  ev(40, 5, 0, 'isr_shrink', '__consumer_offsets'),
];
const groupEvent = (t, over = {}) => ({ timestamp_ms: t, type: 'rebalance_started', group_id: 'g', generation_id: 1,
  coordinator: 1, text: 'rebalance', members: {}, ...over });

test('a fencing is one entry whose children are its consequences, internal topics folded', () => {
  const { entries, hidden } = T.groupedTimeline(fencing, [], false);
  eq(entries.length, 1, 'entries');
  eq(entries[0].event.type, 'broker_fenced', 'the cause');
  eq(entries[0].children.map(c => c.type), ['leader_changed', 'isr_shrink'], 'children in batch order');
  eq(entries[0].folded, 3, 'folded');
  eq(hidden, 0, 'hidden');
});

test('ticking "show internal topics" lists every consequence', () => {
  const { entries } = T.groupedTimeline(fencing, [], true);
  eq(entries[0].children.length, 5, 'children');
  eq(entries[0].folded, 0, 'folded');
});

test('an internal-topic event without a cause is hidden and counted, with what it caused', () => {
  const created = [ev(7, 0, -1, 'topic_created', '__consumer_offsets'), ev(7, 1, 0, 'partitions_added',
    '__consumer_offsets'), ev(8, 0, -1, 'isr_expand', '__consumer_offsets')];
  const { entries, hidden } = T.groupedTimeline(created, [], false);
  eq(entries.length, 0, 'entries');
  eq(hidden, 3, 'hidden');
  eq(T.groupedTimeline(created, [], true).entries.length, 2, 'shown when asked for');
});

test('an event whose cause fell off the history, or with no index (older broker), stands alone', () => {
  const orphan = ev(50, 3, 0, 'leader_changed', 'orders');
  const old = { offset: 51, timestamp_ms: 1_000_051, type: 'isr_shrink', topic: 'orders', partition: 0,
    broker_id: 3, text: 'old', reason: null };
  const { entries } = T.groupedTimeline([orphan, old], [], false);
  eq(entries.map(e => e.event.text), ['old', orphan.text], 'both top level, newest first');
  eq(entries.map(e => e.children.length), [0, 0], 'no children');
});

test('a cause links only within its batch: same index at another offset is not it', () => {
  const a = ev(60, 0, -1, 'broker_fenced', null);
  const b = ev(61, 1, 0, 'isr_shrink', 'orders'); // its cause (61:0) is not on the list
  eq(T.groupedTimeline([a, b], [], false).entries.length, 2, 'entries');
});

test('the ISR change that completes a move: each step its own entry, the newest of the decision on top', () => {
  // One record of the controller (ClusterEvents): the move completed, leadership left the leaving leader, the
  // leaving replica left the ISR, the last new one joined. No step causes another: none folds under another.
  const at = (index, type, text) => ev(70, index, -1, type, 't', { text, reason: null });
  const completion = [at(0, 'reassignment', 't-0 reassignment completed: replicas [2, 3, 4]'),
    at(1, 'leader_changed', 't-0 leader 1 → 2 (leader epoch 5)'),
    at(2, 'isr_shrink', 't-0 ISR [1, 2, 3, 4] → [2, 3, 4]: replica 1 left'),
    at(3, 'isr_expand', 't-0 ISR [1, 2, 3] → [1, 2, 3, 4]: replica 4 joined')];
  const started = ev(60, 0, -1, 'reassignment', 't',
    { text: 't-0 reassignment started: [1, 2, 3] → [2, 3, 4] (adding [4], removing [1])' });
  const { entries } = T.groupedTimeline([started, ...completion], [], false);
  eq(entries.map(e => e.event.type), ['isr_expand', 'isr_shrink', 'leader_changed', 'reassignment', 'reassignment'],
    'newest first');
  eq(entries.map(e => e.children.length), [0, 0, 0, 0, 0], 'no children');
  eq(T.eventText(entries[3].event), 't-0 reassignment completed: replicas [2, 3, 4]', 'English: the server\'s text');
});

test('group events interleave by time, newest first, above cluster events of the same moment', () => {
  const { entries } = T.groupedTimeline(fencing, [groupEvent(1_000_040), groupEvent(1_000_100)], false);
  eq(entries.map(e => e.kind), ['group', 'group', 'cluster'], 'kinds');
});

test('a coordinator loading a partition of __consumer_offsets is an internal-topic row', () => {
  const loaded = groupEvent(1_000_010, { type: 'coordinator_loaded', group_id: '', text: 'coordinator for __consumer_offsets-3 loaded' });
  const folded = T.groupedTimeline([], [loaded, groupEvent(1_000_020)], false);
  eq(folded.entries.map(e => e.event.type), ['rebalance_started'], 'entries');
  eq(folded.hidden, 1, 'hidden');
  eq(T.groupedTimeline([], [loaded], true).entries.length, 1, 'shown when asked for');
});

test('the summary of a cause names its changes and what it folded', () => {
  eq(T.consequencesSummary(2, 3), '2 changes · 3 internal-topic changes folded');
  eq(T.consequencesSummary(1, 0), '1 change');
  eq(T.consequencesSummary(0, 1), '1 internal-topic change folded');
});

test('a member shows as its client id and the end of its member id', () => {
  eq(M.memberLabel('consumer-1-0f3c1b8e-7a2d-4c55-9e61-5d7be01aa3f2', 'consumer-1'), 'consumer-1 (…a3f2)');
  eq(M.memberLabel('m-1', ''), 'm-1', 'no client id: the id');
});

test('member ids in a text become parts with their labels, the rest stays text', () => {
  const a = 'c1-11111111-2222-3333-4444-55555555a3f2';
  const b = 'c1-99999999-2222-3333-4444-55555555b7c1';
  const parts = M.memberParts(`group g generation 2 stable: ${a} ← [t-0]; ${b} ← [t-1]`, { [a]: 'c1', [b]: 'c1' });
  eq(parts, ['group g generation 2 stable: ', { memberId: a, label: 'c1 (…a3f2)' }, ' ← [t-0]; ',
    { memberId: b, label: 'c1 (…b7c1)' }, ' ← [t-1]']);
  eq(M.memberParts('no members here', { [a]: 'c1' }), ['no members here'], 'nothing to replace');
});

test('client ids of the groups rows fill in for events that do not carry them', () => {
  const known = M.clientIdsOfGroups([{ members: [{ member_id: 'x-1', client_id: 'x' }] }, { members: [] }]);
  eq([...known], [['x-1', 'x']]);
});

// ----- runner -----
/** Runs every test; in the browser also writes the results into #results (the harness does). */
export const runTests = run;

if (typeof document !== 'undefined') runTests();
