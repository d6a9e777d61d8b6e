// The scripts' catalogue (i18n.js) and what is said through it: placeholders, plurals, the glossary, a cluster
// event's words from its fields, in the language run.html loaded (?lang=en, the default, or ?lang=zh).
import { t, tn, lang, has, setCatalogue } from '/js/i18n.js';
import { definition, termName, TERMS } from '/js/glossary.js';
import { eventText, eventReason, consequencesSummary } from '/js/timeline.js';
import { formatLagTime } from '/js/lag-time.js';
import { formatDuration } from '/js/format.js';
import { createSuite, eq } from '/js-tests/harness.js';

const { test, run } = createSuite();
const zh = lang() === 'zh';
const event = (type, over = {}) => ({ offset: 1, timestamp_ms: 1, type, topic: null, partition: -1, broker_id: 2,
  text: `server text of ${type}`, reason: null, ...over });

test('the catalogue for the page is loaded', () => {
  eq(has('js.glossary.isr.name'), true, 'a glossary key');
  eq(t('connection.live', 3), zh ? '实时 · broker 3' : 'live · broker 3', 'with "js." left off');
  eq(t('js.connection.live', 3), zh ? '实时 · broker 3' : 'live · broker 3', 'with "js."');
});

test('placeholders are filled by position, in the order the language puts them', () => {
  eq(t('partitions.summary', 12, 3, 1, 0), zh ? '3 个主题中的 12 个分区 · 1 个副本不足 · 0 个离线'
    : '12 partitions in 3 topics · 1 under-replicated · 0 offline', 'summary');
});

test('a missing key shows as itself, not as silence', () => {
  eq(t('no.such.key', 1), 'js.no.such.key', 'missing');
});

test('plurals: one and other', () => {
  eq(consequencesSummary(1, 0), zh ? '1 项变化' : '1 change', 'one');
  eq(consequencesSummary(2, 3), zh ? '2 项变化 · 已折叠 3 项内部主题变化' : '2 changes · 3 internal-topic changes folded',
    'other');
  eq(tn(2, 'clients.connections'), zh ? '2 条连接' : '2 connections', 'tn');
});

test('the glossary has every term, Kafka\'s own names kept', () => {
  for (const key of TERMS) eq(has(`js.glossary.${key}.text`), true, key);
  eq(termName('isr'), zh ? 'ISR（同步副本集合，in-sync replicas）' : 'ISR (in-sync replicas)', 'isr');
  eq(termName('lag_time'), 'replica.lag.time.max.ms', 'a config name');
  eq(definition('hw').startsWith(zh ? 'HW（高水位，high watermark）：' : 'HW (high watermark): '), true, 'hover');
  eq(definition('no_such_term'), '', 'unknown term');
  eq(termName('reassignment'), zh ? '重分配（reassignment，迁移副本）' : 'reassignment (moving replicas)', 'reassignment');
});

test('a cluster event says what its fields say in the page language, else the server text', () => {
  eq(eventText(event('broker_fenced')), zh ? 'broker 2 被隔离（fenced）' : 'server text of broker_fenced', 'fenced');
  eq(eventText(event('topic_created', { topic: 'orders', broker_id: -1 })),
    zh ? '主题 orders 已创建' : 'server text of topic_created', 'created');
  eq(eventText(event('controller_elected', { text: 'broker 2 is the active controller (Raft term 7)' })),
    zh ? 'broker 2 成为活跃控制器（Raft 任期 7）' : 'broker 2 is the active controller (Raft term 7)', 'elected');
  eq(eventText(event('controller_elected', { text: 'something else' })), 'something else', 'no term: server text');
  eq(eventText(event('leader_changed', { text: 'leader 1 → 2 (leader epoch 4)' })),
    'leader 1 → 2 (leader epoch 4)', 'fields do not say it all: server text');
  eq(eventReason(event('broker_unfenced', { reason: 'caught up with the metadata log' })),
    zh ? '已追上元数据日志' : 'caught up with the metadata log', 'a fixed reason');
  eq(eventReason(event('broker_fenced', { reason: 'session expired after 3000 ms' })),
    'session expired after 3000 ms', 'another reason: the server text');
});

test('the server\'s sentences with numbers the fields lack are read back, in the forms ClusterEvents writes', () => {
  const say = (type, text, over = {}) => eventText(event(type, { text, ...over }));
  const cases = [
    ['leader_changed', 'orders-0 leader 1 → 2 (leader epoch 4)', 'orders-0 的 Leader 从 1 变为 2（leader epoch 4）'],
    ['leader_changed', 'orders-0 leader none → 3 (leader epoch 1)', 'orders-0 的 Leader 从 无 变为 3（leader epoch 1）'],
    ['leader_changed', 'orders-0 offline: leader 2 → none (leader epoch 5)', 'orders-0 离线：Leader 2 → 无（leader epoch 5）'],
    ['isr_shrink', 'orders-0 ISR [1, 2, 3] → [1, 2]: replica 3 left', 'orders-0 的 ISR [1, 2, 3] → [1, 2]：副本 3 离开'],
    ['isr_expand', 'orders-0 ISR [1] → [1, 2, 3]: replicas 2, 3 joined', 'orders-0 的 ISR [1] → [1, 2, 3]：副本 2, 3 加入'],
    ['replica_truncated', 'replica 3 dropped offsets 10–12 that leader 1 never had (leader epoch 4)',
      '副本 3 截掉了 Leader 1 从未有过的偏移量 10–12（leader epoch 4）'],
    ['broker_registered', 'broker 2 registered again (new process) at 127.0.0.1:8082, KAFKA 127.0.0.1:9093',
      'broker 2 重新注册（新进程），地址 127.0.0.1:8082, KAFKA 127.0.0.1:9093'],
    ['partitions_added', 'partition orders-1 on replicas [2, 3, 1], leader 2', '分区 orders-1，副本 [2, 3, 1]，Leader 2'],
    ['partitions_added', 'and 7 more partitions of orders', '以及 orders 的另外 7 个分区'],
    ['reassignment', 't-0 reassignment started: [1, 2, 3] → [2, 3, 4] (adding [4], removing [1])',
      't-0 开始重分配：[1, 2, 3] → [2, 3, 4]（新增 [4]，移除 [1]）'],
    ['reassignment', 't-0 reassignment retargeted: [2, 3, 4] → [3, 4, 5] (adding [4, 5], removing [1, 2])',
      't-0 的重分配改换目标：[2, 3, 4] → [3, 4, 5]（新增 [4, 5]，移除 [1, 2]）'],
    ['reassignment', 't-0 reassignment started: [1, 2, 3] → [1, 2] (adding [], removing [3])',
      't-0 开始重分配：[1, 2, 3] → [1, 2]（新增 []，移除 [3]）'],
    ['reassignment', 't-0 reassignment completed: replicas [2, 3, 4]', 't-0 重分配完成：副本 [2, 3, 4]'],
    ['reassignment', 't-0 reassignment cancelled: replicas back to [1, 2, 3]', 't-0 重分配已取消：副本恢复为 [1, 2, 3]'],
    ['reassignment', 't-0 replicas [1, 2, 3] → [1, 2] (all in sync)', 't-0 的副本 [1, 2, 3] → [1, 2]（全部同步）'],
    ['fault_injected', 'broker 3 cut off from every broker and client', 'broker 3 与所有 broker 和客户端断开'],
    ['fault_injected', 'broker 3 cut off from the controller (broker 1)', 'broker 3 与 controller（broker 1）断开'],
    ['fault_injected', 'broker 1 cut off from the other brokers [2, 3]; clients still reach it',
      'broker 1 与其他 broker [2, 3] 断开；客户端仍能连到它'],
    ['fault_injected', 'every link restored', '所有链路已恢复'],
    ['fault_injected', 'cutting broker 2 off failed; its links are as they were', '断开 broker 2 失败；它的链路保持原样'],
  ];
  for (const [type, text, chinese] of cases) eq(say(type, text), zh ? chinese : text, text);
  eq(say('isr_shrink', 'orders-0 ISR changed somehow'), 'orders-0 ISR changed somehow', 'another form: as sent');
  eq(say('reassignment', 't-0 reassignment paused: replicas [1]'), 't-0 reassignment paused: replicas [1]',
    'a reassignment step in another form: as sent');
  eq(eventReason(event('replica_truncated', { reason: 'above the high watermark (10): never committed, so no '
    + 'acks=all producer was told they were written; acks=1 or acks=0 producers may have been, and lost them' }))
    .startsWith(zh ? '位于高水位（10）之上' : 'above the high watermark (10)'), true, 'truncation reason');
  eq(eventReason(event('fault_injected', { reason: 'the dashboard\'s network action, through broker 2' })),
    zh ? '仪表盘的网络操作，经由 broker 2' : 'the dashboard\'s network action, through broker 2', 'fault reason');
});

test('times and limits in the page language', () => {
  eq(formatLagTime(4_250, 5_000), zh ? '4.2 秒 / 5 秒' : '4.2 s of 5 s', 'lag timer');
  eq(formatDuration(3_723_000), zh ? '1 小时 2 分钟' : '1 h 2 min', 'duration');
});

// Last: it replaces the loaded catalogue.
test('setCatalogue replaces the catalogue; a bad one leaves an empty English one', () => {
  setCatalogue({ lang: 'zh', messages: { 'js.connection.live': '实时 · broker {0}' } });
  eq([lang(), t('connection.live', 1)], ['zh', '实时 · broker 1'], 'replaced');
  setCatalogue(null);
  eq([lang(), t('connection.live', 1)], ['en', 'js.connection.live'], 'empty');
});

export const results = run();
