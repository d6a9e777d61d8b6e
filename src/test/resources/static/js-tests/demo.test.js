// The running demo on the page: state.js carries the snapshot's and the deltas' `demo`, render-demo.js draws the
// banner and render-partitions.js marks the rows and topics it uses. Run by js-tests/run.html?suite=demo (and
// ?suite=demo&lang=zh, where the banner's words come from the Chinese catalogue).
import * as S from '/js/state.js';
import { createDemoView } from '/js/render-demo.js';
import { createPartitionsView } from '/js/render-partitions.js';
import { lang } from '/js/i18n.js';
import { createSuite, eq } from '/js-tests/harness.js';

const { test, run } = createSuite();

const header = { cluster_id: 'c1', broker_id: 1, controller_id: 1, controller_epoch: 1, metadata_offset: 10,
  server_time_ms: 1_000_000, fault_actions: false };
const partition = (topic, p) => ({ key: `${topic}-${p}`, topic, partition: p, state: 'online', leader: 1,
  leader_epoch: 0, replicas: [1], isr: [1], osr: [],
  offsets: { log_start_offset: 0, high_watermark: 1, log_end_offset: 1, size_bytes: 10, segments: 1,
    status_line: 'b1 leader', replicas: [{ broker_id: 1, in_sync: true, log_end_offset: 1, lag: 0 }] } });
const topic = name => ({ name, partitions: 2, replication_factor: 1, min_insync_replicas: 1 });
const isrDemo = (over = {}) => ({ name: 'isr', title: 'A follower stops fetching', step: 2, steps: 5,
  text: 'Broker 3 stops fetching; watch its timer.', topics: ['demo-isr'], partitions: ['demo-isr-0'],
  updated_ms: 1_764_800_000_000, ...over });
const snapshot = demo => ({ type: 'snapshot', seq: 1, state: { ...header, brokers: [],
  partitions: [partition('demo-isr', 0), partition('demo-isr', 1), partition('orders', 0)],
  topics: [topic('demo-isr'), topic('orders')], events: [], groups: [], group_events: [], demo } });
// As the server sends it: the running demo (or null) inside the delta's header, which every delta carries.
const delta = (seq, over) => {
  const { demo, ...rest } = over;
  return { type: 'delta', seq, header: 'demo' in over ? { ...header, demo } : header, brokers: [],
    removed_brokers: [], partitions: [], removed_partitions: [], topics: null, events: [], groups: [],
    removed_groups: [], group_events: [], ...rest };
};

// ----- state -----
test('a snapshot without a demo has none', () => {
  eq(S.applyMessage(S.emptyState(), snapshot(undefined)).state.demo, null, 'demo');
  eq(S.applyMessage(S.emptyState(), snapshot(null)).state.demo, null, 'demo');
});

test('a snapshot carries the running demo and says so', () => {
  const r = S.applyMessage(S.emptyState(), snapshot(isrDemo()));
  eq(r.state.demo.name, 'isr', 'name');
  eq([r.state.demo.step, r.state.demo.steps], [2, 5], 'step');
  eq(r.state.demo.partitions, ['demo-isr-0'], 'partitions');
  eq(r.changes.demo, true, 'changes.demo');
});

test('a delta with the next step replaces the demo; one without the field keeps it', () => {
  let s = S.applyMessage(S.emptyState(), snapshot(isrDemo())).state;
  let r = S.applyMessage(s, delta(2, { demo: isrDemo({ step: 3, title: 'It leaves the ISR' }) }));
  eq([r.state.demo.step, r.state.demo.title], [3, 'It leaves the ISR'], 'step 3');
  eq(r.changes.demo, true, 'changed');
  s = r.state;
  r = S.applyMessage(s, delta(3, {}));
  eq(r.state.demo.step, 3, 'kept');
  eq(r.changes.demo, false, 'not changed');
  r = S.applyMessage(s, delta(3, { demo: isrDemo({ step: 3, title: 'It leaves the ISR' }) }));
  eq(r.changes.demo, false, 'the same demo again is no change');
});

test('a delta with demo null ends it; heartbeats keep it', () => {
  const s = S.applyMessage(S.emptyState(), snapshot(isrDemo())).state;
  eq(S.applyMessage(s, { type: 'heartbeat', seq: 2, server_time_ms: 1_000_500 }).state.demo.name, 'isr', 'beat');
  const r = S.applyMessage(s, delta(2, { demo: null }));
  eq(r.state.demo, null, 'ended');
  eq(r.changes.demo, true, 'changed');
});

test('merged change records keep a demo change', () => {
  const merged = S.mergeChanges({ ...S.noChanges(), demo: true }, S.noChanges());
  eq(merged.demo, true, 'demo');
});

test('demoMarks: listed partitions and their topics; a listed topic alone marks all its rows', () => {
  const s = S.applyMessage(S.emptyState(), snapshot(isrDemo())).state;
  const m = S.demoMarks(s);
  eq([...m.partitions], ['demo-isr-0'], 'partitions');
  eq([...m.topics], ['demo-isr'], 'topics');
  eq([m.marksRow(s.partitions.get('demo-isr-0')), m.marksRow(s.partitions.get('demo-isr-1'))], [true, false], 'rows');
  const whole = S.applyMessage(S.emptyState(), snapshot(isrDemo({ partitions: [], topics: ['orders'] }))).state;
  eq(S.demoMarks(whole).marksRow(whole.partitions.get('orders-0')), true, 'whole topic');
  eq(S.demoMarks(S.emptyState()).topics.size, 0, 'no demo');
});

// ----- rendering -----
function banner() {
  const node = document.createElement('section');
  node.hidden = true;
  for (const part of ['name', 'step', 'title', 'text']) {
    const span = document.createElement('span');
    span.className = 'demo-' + part;
    node.append(span);
  }
  return node;
}

test('the banner shows the demo, its step, title and text, and hides when it ends', () => {
  const node = banner();
  const view = createDemoView(node);
  const r = S.applyMessage(S.emptyState(), snapshot(isrDemo()));
  view.render(r.state, r.changes);
  eq(node.hidden, false, 'shown');
  eq([node.dataset.demo, node.dataset.step], ['isr', '2'], 'data');
  eq(node.querySelector('.demo-name').textContent, 'isr', 'name');
  eq(node.querySelector('.demo-step').textContent, lang() === 'zh' ? '第 2 步，共 5 步' : 'step 2 of 5', 'step');
  eq(node.querySelector('.demo-title').textContent, 'A follower stops fetching', 'title');
  eq(node.querySelector('.demo-text').textContent, 'Broker 3 stops fetching; watch its timer.', 'text');
  const ended = S.applyMessage(r.state, delta(2, { demo: null }));
  view.render(ended.state, ended.changes);
  eq([node.hidden, node.dataset.demo], [true, ''], 'hidden');
});

test('the partitions table marks the demo rows and topic, and unmarks them when it ends', () => {
  const make = tag => document.createElement(tag);
  const container = make('div');
  const view = createPartitionsView({ container, filterInput: make('input'), problemsCheckbox: make('input'),
    summary: make('span'), empty: make('p'), noMatch: make('p'), onDeleteTopic: () => {} });
  const r = S.applyMessage(S.emptyState(), snapshot(isrDemo()));
  view.render(r.state, r.changes);
  const row = key => container.querySelector(`tr[data-partition='${key}']`);
  eq(row('demo-isr-0').dataset.demo, '1', 'demo row');
  eq(row('demo-isr-0').classList.contains('demo-highlight'), true, 'class');
  eq(row('demo-isr-1').dataset.demo, '', 'other row of the topic');
  eq(row('orders-0').dataset.demo, '', 'another topic');
  eq(container.querySelector(".topic[data-topic='demo-isr']").dataset.demo, '1', 'topic');
  eq(container.querySelector(".topic[data-topic='orders']").dataset.demo, '', 'other topic');
  const ended = S.applyMessage(r.state, delta(2, { demo: null }));
  view.render(ended.state, ended.changes);
  eq(row('demo-isr-0').dataset.demo, '', 'unmarked');
  eq(row('demo-isr-0').classList.contains('demo-highlight'), false, 'class removed');
  eq(container.querySelector(".topic[data-topic='demo-isr']").dataset.demo, '', 'topic unmarked');
});

test('the table is in the page language', () => {
  const container = document.createElement('div');
  const make = tag => document.createElement(tag);
  const view = createPartitionsView({ container, filterInput: make('input'), problemsCheckbox: make('input'),
    summary: make('span'), empty: make('p'), noMatch: make('p'), onDeleteTopic: () => {} });
  const r = S.applyMessage(S.emptyState(), snapshot(null));
  view.render(r.state, r.changes);
  const badge = container.querySelector("tr[data-partition='orders-0'] .badge").textContent;
  eq(badge, lang() === 'zh' ? '在线' : 'online', 'state badge');
});

export const results = run();
