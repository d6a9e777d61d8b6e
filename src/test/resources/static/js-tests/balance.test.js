// Unit tests of the Move replicas and Balance forms' pure parts and of the brokers' load and traffic bars
// (balance-model.js),
// and of the API calls they make (actions.js); run by js-tests/run.html?suite=balance, in English and with
// &lang=zh in Chinese.
import * as B from '/js/balance-model.js';
import { brokerLoad, brokerTraffic } from '/js/state.js';
import { createApi } from '/js/actions.js';
import { t, lang } from '/js/i18n.js';
import { createSuite, eq } from '/js-tests/harness.js';

const { test, run } = createSuite();
const zh = lang() === 'zh';

// ----- fixtures -----
const partition = (topic, p, over = {}) => ({ key: `${topic}-${p}`, topic, partition: p, state: 'online', leader: 1,
  leader_epoch: 0, replicas: [1, 2, 3], isr: [1, 2, 3], osr: [], adding_replicas: [], removing_replicas: [], ...over });
/** Just what the helpers read of a state (state.js): brokers by id, partitions by key. */
const stateOf = (brokerIds, partitions) => ({
  brokers: new Map(brokerIds.map(id => [id, { broker_id: id }])),
  partitions: new Map(partitions.map(p => [p.key, p])),
});
/** What brokerBars adds for a broker when no traffic is known. */
const NO_TRAFFIC = { recordsIn: 0, bytesIn: 0, maxRecordsIn: 0, maxBytesIn: 0, recordsInPct: 0, bytesInPct: 0 };
const brokerRow = (id, rb, ra, lb, la, role = 'eligible') => ({ broker_id: id, role, replicas_before: rb,
  replicas_after: ra, preferred_leaders_before: lb, preferred_leaders_after: la });
const answer = (over = {}) => ({ kind: 'TributaryBalance', balanced: false, replicas_to_copy: 2,
  text: '2 move(s), 2 replica(s) to copy, 0 partition(s) skipped\norders-0: [1,2] → [3,2]\n',
  moves: [{ topic_name: 'orders', partition_id: 0, current_replicas: [1, 2], target_replicas: [3, 2] },
    { topic_name: 'orders', partition_id: 1, current_replicas: [1, 2], target_replicas: [1, 3] }],
  brokers: [brokerRow(1, 2, 1, 2, 1), brokerRow(2, 2, 2, 0, 0), brokerRow(3, 0, 1, 0, 1)],
  skipped: [], execution: null, ...over });
const execution = (state, over = {}) => ({ state, moves_total: 4, moves_done: 1, moves_in_flight: 2,
  moves_failed: 0, failures: [], plan_text: 'the plan being carried out\n', ...over });

// ----- the broker ids typed into the Move form -----
test('broker ids parse in the order typed, whatever separates them', () => {
  eq(B.parseBrokerIds('2,3,4'), { ids: [2, 3, 4] }, 'commas');
  eq(B.parseBrokerIds(' 4 2  3 '), { ids: [4, 2, 3] }, 'spaces, the first stays first (the preferred leader)');
  eq(B.parseBrokerIds('[2, 3]'), { ids: [2, 3] }, 'a JSON-like list');
  eq(B.parseBrokerIds('2，3'), { ids: [2, 3] }, 'a full-width comma (Chinese input)');
  eq(B.parseBrokerIds('0'), { ids: [0] }, 'broker 0');
});

test('broker ids that cannot be a target say why', () => {
  eq(B.parseBrokerIds(''), { error: t('moves.needIds') }, 'empty');
  eq(B.parseBrokerIds(' , '), { error: t('moves.needIds') }, 'only separators');
  eq(B.parseBrokerIds('2,x'), { error: t('moves.notAnId', 'x') }, 'not a number');
  eq(B.parseBrokerIds('-1'), { error: t('moves.notAnId', '-1') }, 'negative');
  eq(B.parseBrokerIds('1.5'), { error: t('moves.notAnId', '1.5') }, 'not whole');
  eq(B.parseBrokerIds('2,3,2'), { error: t('moves.twice', 2) }, 'twice');
  eq(B.parseBrokerIds('').error,
    zh ? '请填写要迁移到的 broker，例如 2, 3, 4' : 'name the brokers to move to, e.g. 2, 3, 4', 'the words');
  eq(B.formatBrokerIds([3, 1, 2]), '3, 1, 2', 'back into the input');
  eq(B.parseBrokerIds(B.formatBrokerIds([3, 1, 2])), { ids: [3, 1, 2] }, 'round trip');
});

// ----- what the Move form prefills and says -----
test('the Move form prefills a partition\'s replicas, or its target while it moves', () => {
  const s = stateOf([1, 2, 3, 4], [partition('orders', 0, { replicas: [2, 1, 3], leader: 2 }),
    partition('orders', 1, { replicas: [2, 3, 4, 1], adding_replicas: [4], removing_replicas: [1], osr: [4] })]);
  const still = B.partitionForMove(s, 'orders', 0);
  eq(still, { key: 'orders-0', replicas: [2, 1, 3], leader: 2, move: null }, 'not moving');
  eq(B.describePartitionForMove(still), t('moves.now', 'orders-0', '[2,1,3]', 2));
  const moving = B.partitionForMove(s, 'orders', 1);
  eq(moving.replicas, [2, 3, 4], 'the target');
  eq(moving.move, { adding: [4], removing: [1], target: [2, 3, 4] }, 'the move');
  eq(B.describePartitionForMove(moving), zh ? 'orders-1 正在迁移到 [2,3,4]：新增 [4]，移除 [1]'
    : 'orders-1 is moving to [2,3,4]: adding [4], removing [1]');
  eq(B.partitionForMove(s, 'orders', 7), null, 'unknown partition');
  eq(B.describePartitionForMove(null), t('moves.noSuchPartition'));
  eq(B.describePartitionForMove(B.partitionForMove(stateOf([1], [partition('t', 0, { leader: -1 })]), 't', 0)),
    t('moves.now', 't-0', '[1,2,3]', '—'), 'no leader');
});

test('the answer to a move says whether replicas are being copied, and a cancel where they went back to', () => {
  const started = { topic_name: 'orders', partition_id: 0, in_progress: true, replica_ids: [2, 3, 4, 1],
    target_replica_ids: [2, 3, 4], adding_replicas: [4], removing_replicas: [1] };
  eq(B.describeMove(started), zh ? '正在把 orders-0 迁移到 [2,3,4]：新增 [4]，新副本都同步后移除 [1]'
    : 'moving orders-0 to [2,3,4]: adding [4], removing [1] once the new replicas are in sync');
  const reordered = { topic_name: 'orders', partition_id: 0, in_progress: false, replica_ids: [3, 2, 1],
    target_replica_ids: [3, 2, 1], adding_replicas: [], removing_replicas: [] };
  eq(B.describeMove(reordered), t('moves.done', 'orders-0', '[3,2,1]'), 'already in sync');
  eq(B.describeCancel({ ...reordered, replica_ids: [1, 2, 3] }), t('moves.cancelled', 'orders-0', '[1,2,3]'));
});

// ----- the brokers' load bars -----
test('load bars are each broker\'s replicas and leaders against the most-loaded broker\'s', () => {
  const s = stateOf([1, 2, 3], [partition('t', 0, { leader: 1, replicas: [1, 2] }),
    partition('t', 1, { leader: 1, replicas: [1, 2] }), partition('t', 2, { leader: 2, replicas: [2, 1] }),
    partition('t', 3, { leader: 1, replicas: [1, 2] })]);
  const bars = B.brokerBars(brokerLoad(s));
  eq(bars.get(1), { replicas: 4, leaders: 3, maxReplicas: 4, maxLeaders: 3, replicasPct: 100, leadersPct: 100,
    ...NO_TRAFFIC });
  eq(bars.get(2), { replicas: 4, leaders: 1, maxReplicas: 4, maxLeaders: 3, replicasPct: 100, leadersPct: 33,
    ...NO_TRAFFIC });
  eq(bars.get(3), { replicas: 0, leaders: 0, maxReplicas: 4, maxLeaders: 3, replicasPct: 0, leadersPct: 0,
    ...NO_TRAFFIC }, 'a new broker with nothing: the imbalance shows');
});

test('load bars of a cluster without partitions are empty, not NaN', () => {
  const bars = B.brokerBars(brokerLoad(stateOf([1, 2], [])));
  eq(bars.get(1), { replicas: 0, leaders: 0, maxReplicas: 0, maxLeaders: 0, replicasPct: 0, leadersPct: 0,
    ...NO_TRAFFIC });
  eq(bars.size, 2);
});

test('load bars count a moving partition\'s replicas where they are now, leaving ones too', () => {
  const s = stateOf([1, 2, 3, 4], [partition('t', 0, { leader: 1, replicas: [2, 3, 4, 1], adding_replicas: [4],
    removing_replicas: [1] }), partition('t', 1, { leader: -1, state: 'offline', replicas: [1] })]);
  const bars = B.brokerBars(brokerLoad(s));
  eq([1, 2, 3, 4].map(id => bars.get(id).replicas), [2, 1, 1, 1], 'replicas');
  eq([1, 2, 3, 4].map(id => bars.get(id).leaders), [1, 0, 0, 0], 'leaders (an offline partition has none)');
  eq(bars.get(2).replicasPct, 50);
});

test('traffic bars are each broker\'s records and bytes in per second against the busiest broker\'s', () => {
  const s = stateOf([1, 2, 3], [partition('t', 0, { leader: 1 }), partition('t', 1, { leader: 2 })]);
  s.brokers.set(1, { broker_id: 1, records_in_per_sec: 200, bytes_in_per_sec: 2_000_000 });
  s.brokers.set(2, { broker_id: 2, records_in_per_sec: 50.5, bytes_in_per_sec: 4_000_000 });
  // Broker 3 predates the fields (or did not answer): it reads 0, and the others still scale.
  const bars = B.brokerBars(brokerLoad(s), brokerTraffic(s));
  const traffic = id => {
    const { recordsIn, bytesIn, maxRecordsIn, maxBytesIn, recordsInPct, bytesInPct } = bars.get(id);
    return { recordsIn, bytesIn, maxRecordsIn, maxBytesIn, recordsInPct, bytesInPct };
  };
  eq(traffic(1), { recordsIn: 200, bytesIn: 2_000_000, maxRecordsIn: 200, maxBytesIn: 4_000_000,
    recordsInPct: 100, bytesInPct: 50 }, 'most records, half the bytes of broker 2');
  eq(traffic(2), { recordsIn: 50.5, bytesIn: 4_000_000, maxRecordsIn: 200, maxBytesIn: 4_000_000,
    recordsInPct: 25, bytesInPct: 100 }, 'fewer, larger records');
  eq(traffic(3), { recordsIn: 0, bytesIn: 0, maxRecordsIn: 200, maxBytesIn: 4_000_000, recordsInPct: 0,
    bytesInPct: 0 }, 'nothing known');
  eq(bars.get(1).leaders, 1, 'the replica and leader bars are unchanged by traffic');
});

test('traffic bars of an idle cluster are empty, not NaN', () => {
  const s = stateOf([1, 2], []);
  s.brokers.set(1, { broker_id: 1, records_in_per_sec: 0, bytes_in_per_sec: 0 });
  const bars = B.brokerBars(brokerLoad(s), brokerTraffic(s));
  eq([bars.get(1).recordsInPct, bars.get(1).bytesInPct, bars.get(2).recordsInPct, bars.get(2).bytesInPct],
    [0, 0, 0, 0]);
});

// ----- the Balance form -----
test('a plan to carry out: its numbers, its text, the brokers now and after, and Balance now allowed', () => {
  const v = B.balanceView(answer());
  eq(v.lines, [t('balance.plan', 2, 2, 0)], 'lines');
  eq(v.lines[0], zh ? '计划：迁移 2 个 · 需复制副本 2 个 · 跳过分区 0 个'
    : 'Plan: moves 2 · replicas to copy 2 · partitions skipped 0', 'the words');
  eq(v.planText, answer().text, 'the broker\'s own text');
  eq(v.brokers.map(b => [b.id, b.replicas, b.leaders, b.changes]),
    [[1, '2 → 1', '2 → 1', true], [2, '2 → 2', '0 → 0', false], [3, '0 → 1', '0 → 1', true]], 'brokers');
  eq(v.brokers[0].role, t('balance.role.eligible'), 'role in the page language');
  eq([v.canExecute, v.running, v.balanced, v.kind], [true, false, false, 'ok']);
});

test('a balanced cluster says so and has nothing to balance', () => {
  const v = B.balanceView(answer({ balanced: true, replicas_to_copy: 0, moves: [], text: '0 move(s)\n',
    brokers: [brokerRow(1, 1, 1, 1, 1), brokerRow(2, 1, 1, 0, 0, 'fenced'), brokerRow(3, 0, 0, 0, 0, 'mystery')] }));
  eq(v.lines, [zh ? '已均衡：没有需要迁移的副本。' : 'Balanced: nothing to move.']);
  eq([v.canExecute, v.balanced, v.running], [false, true, false]);
  eq(v.brokers.map(b => b.role), [t('balance.role.eligible'), t('balance.role.fenced'), 'mystery'],
    'an unknown role as the broker said it');
});

test('while a balance runs: its progress, the plan being carried out, and the form keeps asking', () => {
  const v = B.balanceView(answer({ execution: execution('running') }));
  eq(v.lines, [t('balance.running', 1, 4, 2, 0)], 'only the progress');
  eq(v.lines[0],
    zh ? '均衡中：已完成迁移 1/4 · 进行中 2 · 失败 0' : 'Balancing: moves done 1 of 4 · in flight 2 · failed 0');
  eq(v.planText, 'the plan being carried out\n', 'the running plan, not the fresh one');
  eq([v.running, v.canExecute, v.kind], [true, false, 'pending']);
});

test('after a balance: how it ended, then the plan as the cluster is now', () => {
  const done = B.balanceView(answer({ balanced: true, moves: [], execution: execution('done',
    { moves_done: 4, moves_in_flight: 0 }) }));
  eq(done.lines, [t('balance.done', 4, 4), t('balance.balanced')]);
  eq([done.running, done.canExecute, done.kind], [false, false, 'ok']);
  eq(done.planText, answer().text, 'the fresh plan once nothing runs');
  const failed = B.balanceView(answer({ execution: execution('failed', { moves_done: 3, moves_in_flight: 0,
    moves_failed: 1, failures: [{ topic_name: 'orders', partition_id: 5, message: 'the partition is gone' }] }) }));
  eq(failed.lines, [t('balance.failed', 3, 4, 1, 'orders-5: the partition is gone'), t('balance.plan', 2, 2, 0)]);
  eq([failed.running, failed.canExecute, failed.kind], [false, true, 'error']);
});

// ----- the API calls -----
test('move, cancel, plan and balance call the reassignment and balance resources of the cluster', () => {
  const realFetch = globalThis.fetch;
  const calls = [];
  globalThis.fetch = (url, options) => {
    calls.push({ url, method: options.method, body: options.body });
    return new Promise(() => {});
  };
  try {
    const api = createApi(() => 'http://b1', () => 'c 1');
    api.moveReplicas('a/b', 3, [2, 3, 4]);
    api.cancelMove('orders', 0);
    api.balancePlan();
    api.balance(2);
  } finally {
    globalThis.fetch = realFetch;
  }
  eq(calls.map(c => `${c.method} ${c.url}`), [
    'POST http://b1/v3/clusters/c%201/topics/a%2Fb/partitions/3/reassignment',
    'DELETE http://b1/v3/clusters/c%201/topics/orders/partitions/0/reassignment',
    'GET http://b1/v3/clusters/c%201/balance',
    'POST http://b1/v3/clusters/c%201/balance']);
  eq(calls.map(c => c.body), ['{"replicas":[2,3,4]}', undefined, undefined, '{"max_concurrent_moves":2}'], 'bodies');
});

run();
