// Unit tests of the dashboard's pure modules (state.js, format.js, clients.js, lag-time.js), run by js-tests/run.html?suite=state. One line per test goes into
// <pre id="results" data-passed="N" data-failed="M">; runTests() returns the same lines so node can run it too.
import * as S from '/js/state.js';
import * as F from '/js/format.js';
import * as C from '/js/clients.js';
import * as L from '/js/lag-time.js';
import { createApi } from '/js/actions.js';
import { createReplicas, updateReplicas } from '/js/render-replicas.js';

import { createSuite, eq } from '/js-tests/harness.js';

const { test, run } = createSuite();

function assert(condition, why) {
  if (!condition) throw new Error(why);
}

// ----- fixtures -----
const header = (over = {}) => ({ cluster_id: 'c1', broker_id: 1, controller_id: 2, controller_epoch: 3,
  metadata_offset: 10, server_time_ms: 1_000_000, fault_actions: true, ...over });
const broker = (id, over = {}) => ({ broker_id: id, host: '127.0.0.1', port: 8080 + id,
  state: 'alive', broker_epoch: id * 10, incarnation_id: 'abcdef0123456789', controller: id === 2, reachable: true,
  fetch_paused_until_ms: 0, ...over });
const replica = (id, leo, over = {}) => ({ broker_id: id, in_sync: true, log_end_offset: leo, lag: 0, last_fetch_age_ms: 0, ...over });
const partition = (topic, p, over = {}) => ({ key: `${topic}-${p}`, topic, partition: p, state: 'online', leader: 1,
  leader_epoch: 0, replicas: [1, 2, 3], isr: [1, 2, 3], osr: [],
  offsets: { log_start_offset: 0, high_watermark: 10, log_end_offset: 10, size_bytes: 100, segments: 1,
    status_line: 'b1 leader', replicas: [replica(1, 10), replica(2, 10), replica(3, 10)] }, ...over });
const topic = (name, over = {}) => ({ name, partitions: 2, replication_factor: 3, min_insync_replicas: 2,
  records_in_per_sec: 0, records_out_per_sec: 0, ...over });
const event = (offset, type = 'leader_changed', over = {}) => ({ offset, timestamp_ms: 1_000_000 + offset, type,
  topic: 'orders', partition: 0, broker_id: -1, text: `event ${offset}`, reason: null, ...over });

const groupPartition = (key, over = {}) => ({ key, topic: key.split('-')[0], partition: Number(key.split('-')[1]),
  member_id: 'c1-m', committed_offset: 7, high_watermark: 10, lag: 3, ...over });
const group = (id, over = {}) => ({ group_id: id, state: 'Stable', state_since_ms: 999_000, generation_id: 1,
  protocol_type: 'consumer', protocol: 'range', leader_id: 'c1-m', coordinator: 1, coordinator_partition: 4,
  members: [{ member_id: 'c1-m', client_id: 'c1', host: 'broker-1', partitions: ['orders-0', 'orders-1'] }],
  partitions: [groupPartition('orders-0'), groupPartition('orders-1', { committed_offset: null, lag: 10 })], ...over });
const groupEvent = (t, over = {}) => ({ timestamp_ms: t, type: 'rebalance_started', group_id: 'g', generation_id: 1,
  coordinator: 1, text: `group event at ${t}`, ...over });

const snapshot = (over = {}, seq = 1) => ({ type: 'snapshot', seq, state: { ...header(), brokers: [broker(1), broker(2), broker(3)],
  partitions: [partition('orders', 0), partition('orders', 1)], topics: [topic('orders')], events: [event(1), event(2)],
  groups: [group('g')], group_events: [groupEvent(1_000_001)], ...over } });
const delta = (seq, over = {}) => ({ type: 'delta', seq, header: header({ server_time_ms: 1_000_000 + seq * 250 }),
  brokers: [], removed_brokers: [], partitions: [], removed_partitions: [], topics: null, events: [],
  groups: [], removed_groups: [], group_events: [], ...over });

function start(over) {
  return S.applyMessage(S.emptyState(), snapshot(over)).state;
}

// ----- snapshot and delta -----
test('snapshot fills the state and asks for a full redraw', () => {
  const r = S.applyMessage(S.emptyState(), snapshot());
  eq(r.needsResync, false, 'needsResync');
  eq(r.state.seq, 1, 'seq');
  eq(r.state.header.controller_id, 2, 'controller');
  eq([...r.state.brokers.keys()], [1, 2, 3], 'brokers');
  eq([...r.state.partitions.keys()], ['orders-0', 'orders-1'], 'partitions');
  eq(r.state.events.length, 2, 'events');
  eq(r.changes.full, true, 'full');
});

test('delta replaces changed rows by key and keeps the others', () => {
  const s = start();
  const moved = partition('orders', 1, { leader: 2, leader_epoch: 1 });
  const r = S.applyMessage(s, delta(2, { partitions: [moved], brokers: [broker(3, { reachable: false })] }));
  eq(r.needsResync, false, 'needsResync');
  eq(r.state.partitions.get('orders-1').leader, 2, 'new leader');
  assert(r.state.partitions.get('orders-0') === s.partitions.get('orders-0'), 'unchanged row is shared');
  eq(r.state.brokers.get(3).reachable, false, 'broker replaced');
  eq([...r.changes.partitions], ['orders-1'], 'changed partitions');
  eq([...r.changes.brokers], [3], 'changed brokers');
  eq(r.changes.full, false, 'not full');
});

test('delta does not mutate the previous state', () => {
  const s = start();
  const before = JSON.stringify([...s.partitions.values()]);
  S.applyMessage(s, delta(2, { partitions: [partition('orders', 0, { leader: 3 })], removed_partitions: ['orders-1'] }));
  eq(JSON.stringify([...s.partitions.values()]), before, 'old partitions');
  eq(s.seq, 1, 'old seq');
});

test('the header says whether the page may cut and heal links, in snapshots and deltas', () => {
  let s = S.applyMessage(S.emptyState(), snapshot({ ...header({ network_faults: true }) })).state;
  eq(s.header.network_faults, true, 'from the snapshot');
  s = S.applyMessage(s, delta(2, { header: header({ network_faults: false }) })).state;
  eq(s.header.network_faults, false, 'from a delta');
});

test('delta header replaces every header field', () => {
  const s = start();
  const r = S.applyMessage(s, delta(2, { header: header({ controller_id: 3, controller_epoch: 4, metadata_offset: 11 }) }));
  eq([r.state.header.controller_id, r.state.header.controller_epoch, r.state.header.metadata_offset], [3, 4, 11], 'header');
});

test('topics null keeps the old list, an array replaces it', () => {
  const s = start();
  const kept = S.applyMessage(s, delta(2)).state;
  eq([...kept.topics.keys()], ['orders'], 'kept');
  const replaced = S.applyMessage(kept, delta(3, { topics: [topic('orders'), topic('payments')] }));
  eq([...replaced.state.topics.keys()], ['orders', 'payments'], 'replaced');
  eq(replaced.changes.topics, true, 'changes.topics');
});

test('removed partitions and brokers disappear', () => {
  const s = start();
  const r = S.applyMessage(s, delta(2, { removed_partitions: ['orders-1'], removed_brokers: [3] }));
  eq([...r.state.partitions.keys()], ['orders-0'], 'partitions');
  eq([...r.state.brokers.keys()], [1, 2], 'brokers');
  assert(r.changes.partitions.has('orders-1'), 'removal is a change');
  assert(r.changes.brokers.has(3), 'broker removal is a change');
});

// ----- sequence -----
test('a seq gap asks for a resync and leaves the state unchanged', () => {
  const s = start();
  const r = S.applyMessage(s, delta(3, { partitions: [partition('orders', 0, { leader: 3 })] }));
  eq(r.needsResync, true, 'needsResync');
  assert(r.state === s, 'state unchanged');
});

test('a repeated seq asks for a resync', () => {
  const s = S.applyMessage(start(), delta(2)).state;
  eq(S.applyMessage(s, delta(2)).needsResync, true, 'needsResync');
});

test('a delta or heartbeat before any snapshot asks for a resync', () => {
  eq(S.applyMessage(S.emptyState(), delta(1)).needsResync, true, 'delta');
  eq(S.applyMessage(S.emptyState(), { type: 'heartbeat', seq: 1, server_time_ms: 5 }).needsResync, true, 'heartbeat');
});

test('a heartbeat advances seq and the server clock only', () => {
  const s = start();
  const r = S.applyMessage(s, { type: 'heartbeat', seq: 2, server_time_ms: 1_001_000 });
  eq(r.needsResync, false, 'needsResync');
  eq(r.state.seq, 2, 'seq');
  eq(r.state.header.server_time_ms, 1_001_000, 'clock');
  assert(r.state.partitions === s.partitions, 'partitions shared');
  eq(r.changes.partitions.size, 0, 'no partition changes');
});

test('a new snapshot (after reconnecting elsewhere) replaces everything, whatever its seq', () => {
  let s = S.applyMessage(start(), delta(2, { partitions: [partition('orders', 5)] })).state;
  const r = S.applyMessage(s, snapshot({ ...header({ broker_id: 3 }), partitions: [partition('orders', 0)] }, 1));
  eq(r.needsResync, false, 'needsResync');
  eq(r.state.header.broker_id, 3, 'serving broker');
  eq([...r.state.partitions.keys()], ['orders-0'], 'partitions');
  eq(r.state.seq, 1, 'seq restarts');
  s = S.applyMessage(r.state, delta(2)).state;
  eq(s.seq, 2, 'deltas continue from the new snapshot');
});

test('unknown message types are ignored', () => {
  const s = start();
  const r = S.applyMessage(s, { type: 'group_rebalance_v2', seq: 99 });
  eq(r.needsResync, false, 'needsResync');
  assert(r.state === s, 'state unchanged');
});

// ----- events -----
test('delta events are appended, oldest first', () => {
  const r = S.applyMessage(start(), delta(2, { events: [event(3), event(4)] }));
  eq(r.state.events.map(e => e.offset), [1, 2, 3, 4], 'offsets');
  eq(r.changes.events.map(e => e.offset), [3, 4], 'new events');
});

test('events already seen are dropped (same offset, type, topic, partition, broker)', () => {
  const r = S.applyMessage(start(), delta(2, { events: [event(2), event(3)] }));
  eq(r.state.events.map(e => e.offset), [1, 2, 3], 'offsets');
  eq(r.changes.events.map(e => e.offset), [3], 'new events');
});

test('events at the same offset that differ in type or partition are both kept', () => {
  const r = S.applyMessage(start(), delta(2, { events: [event(2, 'isr_shrink'), event(2, 'leader_changed', { partition: 1 })] }));
  eq(r.state.events.length, 4, 'count');
});

test('the event list keeps only the newest MAX_EVENTS', () => {
  let s = start();
  const many = Array.from({ length: S.MAX_EVENTS + 50 }, (_, i) => event(100 + i));
  const r = S.applyMessage(s, delta(2, { events: many }));
  eq(r.state.events.length, S.MAX_EVENTS, 'length');
  eq(r.state.events[r.state.events.length - 1].offset, 100 + S.MAX_EVENTS + 49, 'newest kept');
  eq(r.state.eventKeys.size, S.MAX_EVENTS, 'dedupe keys bounded too');
  eq(r.changes.events.length, S.MAX_EVENTS, 'reported new events bounded');
});

test('a snapshot dedupes its own events', () => {
  const s = start({ events: [event(1), event(1), event(2)] });
  eq(s.events.map(e => e.offset), [1, 2], 'offsets');
});

// ----- throughput -----
test('throughput history samples each topic at most every THROUGHPUT_SAMPLE_MS', () => {
  let s = start({ topics: [topic('orders', { records_in_per_sec: 5 })] });
  eq(s.throughput.get('orders').length, 1, 'first point');
  s = S.applyMessage(s, delta(2, { header: header({ server_time_ms: 1_000_100 }) })).state;
  eq(s.throughput.get('orders').length, 1, 'too soon');
  s = S.applyMessage(s, delta(3, { header: header({ server_time_ms: 1_000_600 }),
    topics: [topic('orders', { records_in_per_sec: 7, records_out_per_sec: 2 })] })).state;
  eq(s.throughput.get('orders').map(p => [p.in, p.out]), [[5, 0], [7, 2]], 'points');
});

test('throughput history stays within the window and bounded', () => {
  let s = start();
  for (let i = 2; i < 600; i++) {
    s = S.applyMessage(s, { type: 'heartbeat', seq: i, server_time_ms: 1_000_000 + i * 1000 }).state;
  }
  const points = s.throughput.get('orders');
  const now = 1_000_000 + 599 * 1000;
  assert(points.length <= S.THROUGHPUT_MAX_POINTS, `at most ${S.THROUGHPUT_MAX_POINTS} points, got ${points.length}`);
  assert(points.every(p => p.t >= now - S.THROUGHPUT_WINDOW_MS), 'all within the window');
  assert(points.length >= 50, 'but the last minute is kept');
});

test('throughput history of a deleted topic is dropped; it survives a reconnect snapshot', () => {
  let s = start({ topics: [topic('orders'), topic('gone')] });
  s = S.applyMessage(s, delta(2, { header: header({ server_time_ms: 1_001_000 }), topics: [topic('orders')] })).state;
  eq([...s.throughput.keys()], ['orders'], 'topics with history');
  const again = S.applyMessage(s, snapshot({ ...header({ server_time_ms: 1_002_000, broker_id: 2 }) })).state;
  eq(again.throughput.get('orders').length, 3, 'history continues across the new snapshot');
});

// ----- selectors -----
test('partitionHealth ranks offline, unreachable, under-replicated, ok', () => {
  eq(S.partitionHealth(partition('t', 0)), 'ok', 'ok');
  eq(S.partitionHealth(partition('t', 0, { isr: [1, 2], osr: [3] })), 'under_replicated', 'under');
  eq(S.partitionHealth(partition('t', 0, { state: 'offline', leader: -1, offsets: null })), 'offline', 'offline');
  eq(S.partitionHealth(partition('t', 0, { state: 'unreachable', offsets: null })), 'unreachable', 'unreachable');
});

// orders-0 moving from [1, 2, 3] to [2, 3, 4]: the target then the replica leaving; 4 copies outside the ISR.
const moving = (over = {}) => partition('orders', 0, { replicas: [2, 3, 4, 1], isr: [1, 2, 3], osr: [4],
  adding_replicas: [4], removing_replicas: [1],
  offsets: { log_start_offset: 0, high_watermark: 120, log_end_offset: 120, size_bytes: 1, segments: 1,
    status_line: '', replicas: [replica(1, 120), replica(2, 120), replica(3, 120),
      replica(4, 30, { in_sync: false, lag: 90, last_fetch_age_ms: 0, out_of_sync_ms: 4000 })] }, ...over });

test('a partition being moved: its adding and removing replicas and its target, none without a move', () => {
  eq(S.reassignmentOf(moving()), { adding: [4], removing: [1], target: [2, 3, 4] }, 'moving');
  eq(S.reassignmentOf(partition('t', 0, { adding_replicas: [], removing_replicas: [] })), null, 'empty lists');
  eq(S.reassignmentOf(partition('t', 0)), null, 'a server that predates the fields');
  eq(S.reassignmentOf(moving({ replicas: [1, 2], adding_replicas: [], removing_replicas: [3] })),
    { adding: [], removing: [3], target: [1, 2] }, 'a shrink: only removing');
});

test('a snapshot and a delta carry a partition\'s move; the move ending is a changed row', () => {
  let s = start({ partitions: [moving(), partition('orders', 1)] });
  eq(s.partitions.get('orders-0').adding_replicas, [4], 'adding');
  eq(s.partitions.get('orders-0').removing_replicas, [1], 'removing');
  const done = partition('orders', 0, { replicas: [2, 3, 4], isr: [2, 3, 4], leader: 2, adding_replicas: [],
    removing_replicas: [] });
  const r = S.applyMessage(s, delta(2, { partitions: [done] }));
  s = r.state;
  eq([...r.changes.partitions], ['orders-0'], 'changed');
  eq(S.reassignmentOf(s.partitions.get('orders-0')), null, 'completed');
  eq(s.partitions.get('orders-0').replicas, [2, 3, 4], 'the target');
});

test('a move is under-replicated only when the ISR holds fewer replicas than its target (Kafka\'s rule)', () => {
  eq(S.partitionHealth(moving()), 'ok', 'the adding replica catching up is no lost copy');
  eq(S.partitionHealth(moving({ isr: [1, 2], osr: [4, 3] })), 'under_replicated', 'one of the target fell out');
  eq(S.partitionHealth(moving({ isr: [2, 3], osr: [4, 1] })), 'under_replicated', 'the leaving one fell out too');
  eq(S.partitionHealth(moving({ isr: [2, 3, 4, 1], osr: [] })), 'ok', 'all in sync, about to complete');
  eq(S.topicSummary([moving(), moving({ isr: [1, 2], osr: [4, 3] })]).underReplicated, 1, 'summary');
});

test('replicaBars: a moving partition\'s replicas in order, each with its role, the leader\'s LEO to compare', () => {
  const bars = S.replicaBars(moving());
  eq(bars.replicas.map(r => [r.brokerId, r.role, r.inSync]),
    [[2, null, true], [3, null, true], [4, 'adding', false], [1, 'removing', true]], 'roles');
  eq(bars.leaderLeo, 120, 'leader LEO');
  eq(bars.replicas[2].leo, 30, 'the adding replica\'s LEO');
  eq(bars.replicas[2].widthPct, 25, 'its bar');
  eq(S.replicaBars(partition('t', 0)).replicas.map(r => r.role), [null, null, null], 'no move: no roles');
  eq(S.replicaBars(moving({ state: 'unreachable', offsets: null })).leaderLeo, null, 'not online: unknown');
});

test('replica lines mark the adding replica catching up and the one leaving (in the page only)', () => {
  if (typeof document === 'undefined') return;
  const container = createReplicas();
  updateReplicas(container, moving(), 5000);
  const line = id => container.querySelector(`[data-replica="${id}"]`);
  eq([...container.children].map(l => l.dataset.replica), ['2', '3', '4', '1'], 'lines');
  eq([line(4).dataset.role, line(1).dataset.role, line(2).dataset.role], ['adding', 'removing', ''], 'data-role');
  eq(line(4).querySelector('.rid').textContent, '+4', 'adding id');
  eq(line(4).querySelector('.nums').textContent, '30 of 120 · catching up', 'its LEO against the leader\'s');
  eq(line(4).querySelector('.lag').hidden, true, 'never in the ISR: no "out of ISR" timer');
  eq(line(1).querySelector('.rid').textContent, '★ −1', 'the leader leaving');
  eq(line(1).classList.contains('removing'), true, 'struck through');
  eq(line(1).querySelector('.nums').textContent, '120 · leader · leaving', 'leaving');
  eq(line(4).title.includes('copies the log outside the ISR'), true, 'the hover says why');

  updateReplicas(container, moving({ isr: [1, 2, 3, 4], osr: [], offsets: { ...moving().offsets,
    replicas: [replica(1, 120), replica(2, 120), replica(3, 120), replica(4, 120)] } }), 5000);
  eq(line(4).querySelector('.nums').textContent, '120 · lag 0 · <1 s · joined ISR', 'in the ISR, the move not done');
});

test('problem partitions are the under-replicated and not-online ones', () => {
  const s = start({ partitions: [partition('a', 0), partition('a', 1, { isr: [1], osr: [2, 3] }),
    partition('b', 0, { state: 'offline', leader: -1, offsets: null })] });
  eq(S.problemPartitions(s).map(p => p.key).sort(), ['a-1', 'b-0'], 'problems');
});

test('topicSummary counts partitions, under-replicated and offline', () => {
  const list = [partition('a', 0), partition('a', 1, { isr: [1], osr: [2, 3] }),
    partition('a', 2, { state: 'offline', leader: -1, isr: [3], osr: [1, 2], offsets: null })];
  eq(S.topicSummary(list), { partitions: 3, underReplicated: 1, offline: 1, unreachable: 0 }, 'summary');
});

test('partitionsByTopic groups, sorts topics by name and partitions by id', () => {
  const s = start({ topics: [topic('b'), topic('a'), topic('empty')],
    partitions: [partition('b', 1), partition('a', 10), partition('a', 2), partition('b', 0)] });
  const groups = S.partitionsByTopic(s);
  eq([...groups.keys()], ['a', 'b', 'empty'], 'topics');
  eq(groups.get('a').map(p => p.partition), [2, 10], 'a partitions');
  eq(groups.get('empty'), [], 'topic without partitions yet');
});

test('brokerLoad counts leaders and followers', () => {
  const s = start({ partitions: [partition('t', 0, { leader: 1 }), partition('t', 1, { leader: 2 }),
    partition('t', 2, { leader: -1, state: 'offline', offsets: null })] });
  const load = S.brokerLoad(s);
  eq(load.get(1), { leads: 1, follows: 2 }, 'broker 1');
  eq(load.get(2), { leads: 1, follows: 2 }, 'broker 2');
  eq(load.get(3), { leads: 0, follows: 3 }, 'broker 3');
});

test('brokerTraffic reads each broker\'s rates in, 0 when a broker does not say', () => {
  const s = start({ brokers: [broker(1, { records_in_per_sec: 12.5, bytes_in_per_sec: 2048 }), broker(2),
    broker(3, { records_in_per_sec: null, bytes_in_per_sec: 'x' })] });
  const traffic = S.brokerTraffic(s);
  eq(traffic.get(1), { recordsIn: 12.5, bytesIn: 2048 }, 'broker 1');
  eq(traffic.get(2), { recordsIn: 0, bytesIn: 0 }, 'a broker row without the fields');
  eq(traffic.get(3), { recordsIn: 0, bytesIn: 0 }, 'nonsense reads 0');
});

test('below min ISR compares the ISR with the topic config', () => {
  eq(S.isBelowMinIsr(partition('t', 0, { isr: [1] }), topic('t')), true, 'isr 1 < 2');
  eq(S.isBelowMinIsr(partition('t', 0, { isr: [1, 2] }), topic('t')), false, 'isr 2');
});

test('fetch pause remaining time uses the server clock', () => {
  eq(S.fetchPausedRemainingMs(broker(1, { fetch_paused_until_ms: 1_005_000 }), 1_000_000), 5000, 'paused');
  eq(S.fetchPausedRemainingMs(broker(1, { fetch_paused_until_ms: 900_000 }), 1_000_000), 0, 'expired');
  eq(S.fetchPausedRemainingMs(broker(1), 1_000_000), 0, 'never');
});

test('replicaBars: lengths relative to log start .. max LEO, HW marker, leader flagged', () => {
  const p = partition('t', 0, { leader: 2, isr: [1, 2], osr: [3], offsets: { log_start_offset: 100, high_watermark: 150,
    log_end_offset: 200, size_bytes: 1, segments: 1, status_line: '', replicas: [replica(2, 200), replica(1, 150, { lag: 50 }),
    replica(3, 120, { in_sync: false, lag: 80, last_fetch_age_ms: 14000 })] } });
  const bars = S.replicaBars(p);
  eq(bars.hwPct, 50, 'hw');
  eq(bars.replicas.map(r => [r.brokerId, r.widthPct, r.isLeader, r.inSync]),
    [[1, 50, false, true], [2, 100, true, true], [3, 20, false, false]], 'bars in assignment order');
  eq(bars.replicas[2].lastFetchAgeMs, 14000, 'fetch age');
});

test('replicaBars: a partition that is not online shows every replica as unknown', () => {
  const bars = S.replicaBars(partition('t', 0, { state: 'unreachable', offsets: null, isr: [1, 2], osr: [3] }));
  eq(bars.known, false, 'known');
  eq(bars.replicas.map(r => [r.known, r.leo, r.inSync]), [[false, null, true], [false, null, true], [false, null, false]], 'replicas');
});

test('replicaBars: an empty log draws empty bars, a LEO of -1 is unknown', () => {
  const p = partition('t', 0, { offsets: { log_start_offset: 0, high_watermark: 0, log_end_offset: 0, size_bytes: 0,
    segments: 1, status_line: '', replicas: [replica(1, 0), replica(2, -1, { lag: -1, last_fetch_age_ms: -1 })] } });
  const bars = S.replicaBars(p);
  eq(bars.replicas.map(r => [r.known, r.widthPct]), [[true, 0], [false, 0], [false, 0]], 'bars');
});

test('replicaBars: each replica\'s time not caught up as the leader reported it, null when it did not say', () => {
  const p = partition('t', 0, { isr: [1, 2], osr: [3], offsets: { log_start_offset: 0, high_watermark: 10,
    log_end_offset: 12, size_bytes: 1, segments: 1, status_line: '', replicas: [replica(1, 12, { out_of_sync_ms: 0 }),
    replica(2, 10, { lag: 2, out_of_sync_ms: 3200 }), replica(3, 5, { in_sync: false, lag: 7 })] } });
  eq(S.replicaBars(p).replicas.map(r => r.outOfSyncMs), [0, 3200, null], 'out_of_sync_ms');
  const unreachable = partition('t', 0, { state: 'unreachable', offsets: null });
  eq(S.replicaBars(unreachable).replicas.map(r => r.outOfSyncMs), [null, null, null], 'leader not answering');
});

test('a partition\'s limit is its leader\'s replica.lag.time.max.ms, null when that broker did not say', () => {
  const state = start({ brokers: [broker(1, { replica_lag_time_max_ms: 5000 }), broker(2), broker(3, {
    replica_lag_time_max_ms: null })] });
  eq([1, 2, 3, 4].map(id => S.lagTimeMaxMsOf(state, id)), [5000, null, null, null], 'limits');
});

// ----- the lag timer -----
const follower = (outOfSyncMs, over = {}) => ({ brokerId: 2, isLeader: false, inSync: true, outOfSyncMs, ...over });

test('lag timer: counting in the ISR, warning from 80 % of the limit, over only past it (Kafka\'s rule)', () => {
  eq(L.lagStanding(follower(3200), 5000), { state: 'counting', ms: 3200, fraction: 0.64, level: 'ok' }, '3.2 of 5');
  eq(L.lagStanding(follower(4000), 5000).level, 'warn', '80 %');
  eq(L.lagStanding(follower(5000), 5000), { state: 'counting', ms: 5000, fraction: 1, level: 'warn' }, 'the limit');
  eq(L.lagStanding(follower(7000), 5000), { state: 'counting', ms: 7000, fraction: 1, level: 'over' }, 'past it');
  eq(L.lagStanding(follower(3200), null), { state: 'counting', ms: 3200, fraction: null, level: 'ok' }, 'no limit');
});

test('lag timer: nothing for the leader or an unknown time, caught up at 0, out of the ISR in whole seconds', () => {
  eq(L.lagStanding(follower(0, { isLeader: true }), 5000).state, 'none', 'leader');
  eq(L.lagStanding(follower(null), 5000).state, 'none', 'the leader did not say');
  eq(L.lagStanding(follower(0), 5000), { state: 'caught_up', ms: 0 }, 'caught up');
  eq(L.lagStanding(follower(12000, { inSync: false }), 5000), { state: 'out', ms: 12000, level: 'out' }, 'out');
  eq(L.lagStanding(follower(-1, { inSync: false }), 5000), { state: 'out', ms: null, level: 'out' }, 'out, unknown');
});

test('lag clock: counts on from the last value, a repeated value keeps it, and it stops counting on after a while', () => {
  const clock = L.lagClock(null, 3200, 10_000);
  eq(L.shownLagMs(clock, 10_000), 3200, 'at once');
  eq(L.shownLagMs(clock, 10_450), 3650, 'counted on');
  eq(L.lagClock(clock, 3200, 10_300), clock, 'the same value again: the same clock');
  eq(L.shownLagMs(clock, 10_000 + L.MAX_COUNT_ON_MS + 5000), 3200 + L.MAX_COUNT_ON_MS, 'capped');
  eq(L.lagClock(clock, 0, 10_500), null, 'caught up: no clock');
});

test('lag clock: a value that arrives late does not step back; one that went down or jumped ahead restarts it', () => {
  const clock = L.lagClock(null, 3200, 10_000);
  const late = L.lagClock(clock, 3400, 10_300); // the page shows 3500 by now
  eq(L.shownLagMs(late, 10_300), 3500, 'no step back');
  eq(L.shownLagMs(late, 10_400), 3600, 'and on from there');
  eq(L.shownLagMs(L.lagClock(clock, 4000, 10_300), 10_300), 4000, 'ahead: jumps forward');
  eq(L.shownLagMs(L.lagClock(clock, 300, 10_300), 10_300), 300, 'caught up and fell behind again in between');
});

test('lag timer texts', () => {
  eq(L.formatLagTime(3249, 5000), '3.2 s of 5 s', 'tenths, rounded down');
  eq(L.formatLagTime(100, 30000), '0.1 s of 30 s', 'Kafka\'s default');
  eq(L.formatLagTime(1999, 2500), '1.9 s of 2.5 s', 'a limit in tenths');
  eq(L.formatLagTime(3200, null), '3.2 s', 'no limit');
  eq([60000, 90000, 30000].map(L.formatLimit), ['1 min', '90 s', '30 s'], 'limits');
  eq([12_999, 245_000, 7_380_000, 7_200_000].map(F.formatDuration), ['12 s', '4 min', '2 h 3 min', '2 h'],
    'durations');
});

// ----- failover -----
test('failover prefers alive, answering brokers, the lost one last, and rotates through all', () => {
  const brokers = new Map([[1, broker(1)], [2, broker(2, { reachable: false })], [3, broker(3)], [4, broker(4, { state: 'fenced' })]]);
  eq(S.failoverOrder(brokers, 1).map(b => b.broker_id), [3, 2, 4, 1], 'order');
  eq([0, 1, 2, 3, 4, 5].map(a => S.pickTarget(brokers, 1, a, '127.0.0.1').brokerId), [3, 2, 4, 1, 3, 2], 'rotation');
});

test('failover also tries the page host when a broker advertises another name (Docker)', () => {
  const brokers = new Map([[1, broker(1, { host: 'broker1' })], [2, broker(2, { host: 'broker2' })]]);
  eq(S.failoverTargets(brokers, 1, '127.0.0.1').map(t => `${t.host}:${t.port}`),
    ['broker2:8082', '127.0.0.1:8082', 'broker1:8081', '127.0.0.1:8081'], 'targets');
  eq(S.pickTarget(new Map(), 1, 0, 'x'), undefined, 'no brokers known');
});

test('mergeChanges unions what several messages changed', () => {
  const s = start();
  const a = S.applyMessage(s, delta(2, { partitions: [partition('orders', 0)], events: [event(3)] }));
  const b = S.applyMessage(a.state, delta(3, { partitions: [partition('orders', 1)], events: [event(4)] }));
  const m = S.mergeChanges(a.changes, b.changes);
  eq([...m.partitions].sort(), ['orders-0', 'orders-1'], 'partitions');
  eq(m.events.map(e => e.offset), [3, 4], 'events');
});

// ----- consumer groups -----
test('a snapshot fills the groups by id and the group events', () => {
  const r = S.applyMessage(S.emptyState(), snapshot({ groups: [group('b'), group('a')] }));
  eq([...r.state.groups.keys()], ['b', 'a'], 'groups by id');
  eq(S.sortedGroups(r.state).map(g => g.group_id), ['a', 'b'], 'sorted for display');
  eq(r.state.groupEvents.length, 1, 'group events');
  eq(r.changes.groupEvents.length, 1, 'group events to draw');
});

test('a snapshot from a broker that predates groups has none', () => {
  const s = S.applyMessage(S.emptyState(), { type: 'snapshot', seq: 1, state: { ...header(), brokers: [],
    partitions: [], topics: [], events: [] } }).state;
  eq(s.groups.size, 0, 'groups');
  eq(s.groupEvents, [], 'group events');
});

test('a delta replaces changed group rows by id, keeps the others shared, and removes removed ones', () => {
  const s = start({ groups: [group('g'), group('h'), group('old')] });
  const rebalancing = group('g', { state: 'PreparingRebalance', generation_id: 1 });
  const r = S.applyMessage(s, delta(2, { groups: [rebalancing], removed_groups: ['old'] }));
  eq(r.state.groups.get('g').state, 'PreparingRebalance', 'replaced');
  assert(r.state.groups.get('h') === s.groups.get('h'), 'unchanged row is shared');
  eq([...r.state.groups.keys()].sort(), ['g', 'h'], 'removed');
  eq([...r.changes.groups].sort(), ['g', 'old'], 'changed ids');
  eq(s.groups.get('g').state, 'Stable', 'old state not mutated');
  eq(r.changes.partitions.size, 0, 'no partition changes');
});

test('a delta without group changes keeps the same groups map', () => {
  const s = start();
  const r = S.applyMessage(s, delta(2, { partitions: [partition('orders', 0, { leader: 2 })] }));
  assert(r.state.groups === s.groups, 'groups shared');
  eq(r.changes.groups.size, 0, 'no group changes');
});

test('a heartbeat keeps the groups and their events', () => {
  const s = start();
  const r = S.applyMessage(s, { type: 'heartbeat', seq: 2, server_time_ms: 1_001_000 });
  assert(r.state.groups === s.groups, 'groups');
  assert(r.state.groupEvents === s.groupEvents, 'group events');
});

test('group events are appended and the ones already seen (a coordinator answering again) are dropped', () => {
  const s = start();
  const r = S.applyMessage(s, delta(2, { group_events: [groupEvent(1_000_001), groupEvent(900_000, { coordinator: 2 }),
    groupEvent(1_000_010, { type: 'rebalance_completed', generation_id: 2 })] }));
  eq(r.state.groupEvents.map(e => e.timestamp_ms), [1_000_001, 900_000, 1_000_010], 'kept in arrival order');
  eq(r.changes.groupEvents.map(e => e.timestamp_ms), [900_000, 1_000_010], 'new ones');
  eq(r.changes.events, [], 'no cluster events');
});

test('the group event list keeps only the newest MAX_EVENTS', () => {
  const many = Array.from({ length: S.MAX_EVENTS + 5 }, (_, i) => groupEvent(2_000_000 + i));
  const r = S.applyMessage(start(), delta(2, { group_events: many }));
  eq(r.state.groupEvents.length, S.MAX_EVENTS, 'length');
  eq(r.state.groupEventKeys.size, S.MAX_EVENTS, 'keys bounded');
});

test('mergeChanges unions changed groups and concatenates group events', () => {
  const s = start({ groups: [group('g'), group('h')] });
  const a = S.applyMessage(s, delta(2, { groups: [group('g', { generation_id: 2 })], group_events: [groupEvent(5)] }));
  const b = S.applyMessage(a.state, delta(3, { groups: [group('h', { generation_id: 2 })], group_events: [groupEvent(6)] }));
  const m = S.mergeChanges(a.changes, b.changes);
  eq([...m.groups].sort(), ['g', 'h'], 'groups');
  eq(m.groupEvents.map(e => e.timestamp_ms), [5, 6], 'group events');
});

test('groupSummary totals the lag, unknown if any partition lag is unknown', () => {
  eq(S.groupSummary(group('g')), { members: 1, partitions: 2, lag: 13 }, 'known');
  const unknown = group('g', { partitions: [groupPartition('orders-0'), groupPartition('orders-1', { lag: null, high_watermark: null })] });
  eq(S.groupSummary(unknown).lag, null, 'unknown');
  eq(S.groupSummary(group('e', { members: [], partitions: [] })), { members: 0, partitions: 0, lag: 0 }, 'empty group');
});

test('group states map to badge kinds by their Kafka names', () => {
  eq(['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'].map(S.groupStateKind),
    ['ok', 'warn', 'warn', 'muted', 'bad'], 'kinds');
});

test('internal topics (__consumer_offsets) sort after the user\'s topics', () => {
  const s = start({ topics: [topic('orders'), topic('__consumer_offsets'), topic('Alpha')],
    partitions: [partition('orders', 0), partition('__consumer_offsets', 0), partition('Alpha', 0)] });
  eq([...S.partitionsByTopic(s).keys()], ['Alpha', 'orders', '__consumer_offsets'], 'order');
  eq(S.isInternalTopic('__consumer_offsets'), true, 'internal');
  eq(S.isInternalTopic('orders_x'), false, 'user topic');
});

// ----- Kafka clients -----
const listeners = (kafkaPort) => [{ name: 'HTTP', host: '127.0.0.1', port: 8081, security_protocol: 'PLAINTEXT' },
  ...(kafkaPort ? [{ name: 'KAFKA', host: '127.0.0.1', port: kafkaPort, security_protocol: 'PLAINTEXT' }] : [])];
const connection = (id, over = {}) => ({ connection_id: id, client_id: 'producer-1', software_name: 'apache-kafka-java',
  software_version: '4.4.0', client_address: '127.0.0.1:50001', principal: 'User:ANONYMOUS',
  security_protocol: 'PLAINTEXT', connected_since_ms: 999_000, last_request_ms: 999_500,
  requests: { ApiVersions: 1, Metadata: 2, Produce: 7 }, request_count: 10, ...over });

test('a broker\'s Kafka bootstrap address comes from its KAFKA listener', () => {
  eq(C.kafkaAddress(broker(1, { listeners: listeners(9092) })), '127.0.0.1:9092', 'with a Kafka listener');
  eq(C.kafkaAddress(broker(1, { listeners: listeners(null) })), null, 'HTTP only');
  eq(C.kafkaAddress(broker(1)), null, 'a broker that predates listeners');
});

test('the bootstrap server suggested is the serving broker\'s, else the lowest id\'s, else the default', () => {
  const serving = start({ brokers: [broker(1, { listeners: listeners(9092) }), broker(2, { listeners: listeners(9093) })] });
  eq(C.bootstrapServer(serving), '127.0.0.1:9092', 'serving broker 1');
  const other = start({ brokers: [broker(1, { listeners: listeners(null) }), broker(3, { listeners: listeners(9094) }),
    broker(2, { listeners: listeners(9093) })] });
  eq(C.bootstrapServer(other), '127.0.0.1:9093', 'lowest id with one');
  eq(C.bootstrapServer(start()), C.DEFAULT_BOOTSTRAP, 'none advertised');
});

test('clients by broker: sorted by id, unknown count when the broker did not answer, totals over known ones', () => {
  const s = start({ brokers: [
    broker(2, { client_connection_count: 3, client_connections: [connection('a'), connection('b')] }),
    broker(1, { client_connection_count: 0, client_connections: [] }),
    broker(3, { client_connection_count: null, client_connections: null }),
  ] });
  const rows = C.clientsByBroker(s);
  eq(rows.map(b => b.brokerId), [1, 2, 3], 'order');
  eq(rows.map(b => b.count), [0, 3, null], 'counts');
  eq(rows[1].connections.map(c => c.connection_id), ['a', 'b'], 'listed');
  eq(rows[2].connections, [], 'unknown lists nothing');
  eq(C.totalClientConnections(s), 3, 'total');
});

test('a delta carrying a broker row replaces its connections', () => {
  const s = start({ brokers: [broker(1, { client_connection_count: 0, client_connections: [] })] });
  const r = S.applyMessage(s, delta(2, { brokers: [broker(1, { client_connection_count: 1,
    client_connections: [connection('c-1')] })] }));
  eq(C.clientsByBroker(r.state)[0].connections.map(c => c.connection_id), ['c-1'], 'new connection');
  eq([...r.changes.brokers], [1], 'changed broker');
});

test('software, request summary and hosts read the way a learner expects', () => {
  eq(C.softwareLabel(connection('a')), 'apache-kafka-java 4.4.0', 'name and version');
  eq(C.softwareLabel(connection('a', { software_version: null })), 'apache-kafka-java', 'name only');
  eq(C.softwareLabel(connection('a', { software_name: null })), null, 'did not say');
  eq(C.requestSummary({ Metadata: 2, Produce: 7, ApiVersions: 1, Fetch: 2 }), 'Produce 7 · Fetch 2 · Metadata 2 · +1 more',
    'busiest first, ties by name');
  eq(C.requestSummary({ Produce: 1 }), 'Produce 1', 'one');
  eq(C.requestSummary({}), '', 'none');
  eq(C.displayHost('/127.0.0.1'), '127.0.0.1', 'Kafka\'s host form');
  eq(C.displayHost('broker-1'), 'broker-1', 'a REST member');
  eq(C.memberVia({ host: 'broker-12' }), 'rest', 'REST consumer');
  eq(C.memberVia({ host: '/10.0.0.7' }), 'kafka', 'Kafka client');
});

test('a connection shows the groups whose Kafka member has its client id and address', () => {
  const kafkaMember = { member_id: 'consumer-readers-1-5d0c', client_id: 'consumer-readers-1', host: '/127.0.0.1',
    partitions: ['orders-0'] };
  const s = start({ groups: [
    group('readers', { members: [kafkaMember] }),
    group('rest-readers', { members: [{ ...kafkaMember, host: 'broker-1' }] }),
    group('elsewhere', { members: [{ ...kafkaMember, host: '/10.0.0.9' }] }),
    group('also', { members: [kafkaMember] }),
  ] });
  const c = connection('c', { client_id: 'consumer-readers-1', client_address: '127.0.0.1:50123' });
  eq(C.groupsOfConnection(s, c), ['also', 'readers'], 'member groups, sorted');
  eq(C.groupsOfConnection(s, { ...c, client_id: 'producer-1' }), [], 'another client id');
  eq(C.groupsOfConnection(s, { ...c, client_id: null }), [], 'no request yet');
  const v6 = start({ groups: [group('g6', { members: [{ ...kafkaMember, host: '/0:0:0:0:0:0:0:1' }] })] });
  eq(C.groupsOfConnection(v6, { ...c, client_address: '[0:0:0:0:0:0:0:1]:50123' }), ['g6'], 'IPv6');
});

// ----- format -----
test('format helpers', () => {
  eq(F.decodeBase64Utf8('eyJuIjoxfQ=='), '{"n":1}', 'base64 json');
  eq(F.decodeBase64Utf8('w6l0w6k='), 'été', 'base64 utf-8');
  eq(F.decodeBase64Utf8(null), null, 'null');
  eq(F.formatTime(new Date(2020, 0, 1, 9, 5, 7, 42).getTime()), '09:05:07.042', 'time');
  eq(F.formatFetchAge(0), 'fetched <1 s ago', 'age 0');
  eq(F.formatFetchAge(3000), 'fetched 3 s ago', 'age 3 s');
  eq(F.shortId('0123456789abcdef'), '01234567', 'short id');
  eq(F.idList([1, 2]), '[1,2]', 'id list');
});

// ----- actions -----
test('produce sends the chosen acks as the API\'s acks parameter, all by default', () => {
  const realFetch = globalThis.fetch;
  const calls = [];
  globalThis.fetch = (url, options) => { calls.push({ url, method: options.method }); return new Promise(() => {}); };
  try {
    const api = createApi(() => 'http://b1', () => 'c1');
    api.produce('orders', [{ value: 1 }], '1');
    api.produce('a b', [{ value: 1 }]);
    api.produce('orders', [{ value: 1 }], '0');
  } finally {
    globalThis.fetch = realFetch;
  }
  eq(calls.map(c => c.url), ['http://b1/topics/orders?acks=1', 'http://b1/topics/a%20b?acks=all',
    'http://b1/topics/orders?acks=0'], 'urls');
  eq(calls.map(c => c.method), ['POST', 'POST', 'POST'], 'methods');
});

test('each partition\'s newest truncation comes from the timeline, by partition key', () => {
  const events = [event(1, 'replica_truncated', { topic: 'orders', partition: 0, text: 'first' }),
    event(2, 'leader_changed'), event(3, 'replica_truncated', { topic: 'orders', partition: 0, text: 'second' }),
    event(4, 'replica_truncated', { topic: 'audit', partition: 2, text: 'audit' })];
  const t = S.truncationsByPartition(events);
  eq([...t.keys()].sort(), ['audit-2', 'orders-0']);
  eq(t.get('orders-0').text, 'second', 'the newest');
  eq(S.truncationsByPartition([event(5)]).size, 0);
});

// ----- runner -----
/** Runs every test; in the browser also writes the results into #results (the harness does). */
export const runTests = run;

if (typeof document !== 'undefined') runTests();
