// What the "Move replicas" form and the "Balance" form show, and the per-broker load bars, as pure functions of the
// state (state.js) and of the broker's answers (docs/api.md, "Moving replicas"). PURE (no DOM), so the test page
// checks them (js-tests/balance.test.js); balance.js and render-brokers.js draw them.
import { reassignmentOf } from './state.js';
import { idList, formatBytes } from './format.js';
import { t, has } from './i18n.js';

/** How often the Balance form asks for the progress of a running balance. */
export const BALANCE_POLL_MS = 1000;

/** After this many failed polls in a row the form stops asking (every broker gone, or the page offline). */
export const BALANCE_POLL_MAX_FAILURES = 5;

/**
 * A typed list of broker ids ("2,3,4", "2 3 4", "[2, 3, 4]") → {ids} in the order typed (the first is the
 * preferred leader), or {error}: a message for the user. The broker checks the rest (registered brokers, 42206).
 */
export function parseBrokerIds(text) {
  const parts = String(text ?? '').replace(/[[\]]/g, ' ').split(/[\s,，]+/).filter(s => s !== '');
  if (parts.length === 0) return { error: t('moves.needIds') };
  const ids = [];
  for (const part of parts) {
    if (!/^\d+$/.test(part)) return { error: t('moves.notAnId', part) };
    const id = Number(part);
    if (ids.includes(id)) return { error: t('moves.twice', id) };
    ids.push(id);
  }
  return { ids };
}

/** Broker ids as the form's input shows them: "1, 2, 3". */
export function formatBrokerIds(ids) {
  return (ids || []).join(', ');
}

/**
 * One partition as the Move form needs it, or null when the state does not have it: `replicas` (its target while
 * it is moved, else its replicas: what to prefill), `leader`, and `move` ({adding, removing, target} or null).
 */
export function partitionForMove(state, topic, partition) {
  const p = state.partitions.get(`${topic}-${partition}`);
  if (!p) return null;
  const move = reassignmentOf(p);
  return { key: p.key, replicas: move ? move.target : [...p.replicas], leader: p.leader, move };
}

/** The line under the Move form that says where the chosen partition's replicas are now. */
export function describePartitionForMove(info) {
  if (!info) return t('moves.noSuchPartition');
  if (info.move) {
    return t('moves.nowMoving', info.key, idList(info.move.target), idList(info.move.adding), idList(info.move.removing));
  }
  return t('moves.now', info.key, idList(info.replicas), info.leader < 0 ? '—' : info.leader);
}

/** The broker's answer to a move (a KafkaReassignment), in words. */
export function describeMove(r) {
  const key = `${r.topic_name}-${r.partition_id}`;
  if (r.in_progress) {
    return t('moves.started', key, idList(r.target_replica_ids), idList(r.adding_replicas), idList(r.removing_replicas));
  }
  return t('moves.done', key, idList(r.replica_ids));
}

/** The broker's answer to a cancel (the partition's replicas as they are back to), in words. */
export function describeCancel(r) {
  return t('moves.cancelled', `${r.topic_name}-${r.partition_id}`, idList(r.replica_ids));
}

/**
 * Per broker: its replicas (leader or follower), the partitions it leads, and the records and bytes per second
 * appended to those, each also as a percentage of the busiest broker's (0 when no broker has any), so an uneven
 * cluster shows at a glance. `load` is brokerLoad(state) and `traffic` brokerTraffic(state) (state.js): what the
 * page already has, nothing new is asked. A broker without traffic (none known) reads 0.
 */
export function brokerBars(load, traffic = new Map()) {
  const none = { recordsIn: 0, bytesIn: 0 };
  let maxReplicas = 0;
  let maxLeaders = 0;
  let maxRecordsIn = 0;
  let maxBytesIn = 0;
  for (const [id, { leads, follows }] of load) {
    const { recordsIn, bytesIn } = traffic.get(id) || none;
    maxReplicas = Math.max(maxReplicas, leads + follows);
    maxLeaders = Math.max(maxLeaders, leads);
    maxRecordsIn = Math.max(maxRecordsIn, recordsIn);
    maxBytesIn = Math.max(maxBytesIn, bytesIn);
  }
  const pct = (n, max) => (max > 0 ? Math.round((100 * n) / max) : 0);
  const bars = new Map();
  for (const [id, { leads, follows }] of load) {
    const replicas = leads + follows;
    const { recordsIn, bytesIn } = traffic.get(id) || none;
    bars.set(id, { replicas, leaders: leads, maxReplicas, maxLeaders,
      replicasPct: pct(replicas, maxReplicas), leadersPct: pct(leads, maxLeaders),
      recordsIn, bytesIn, maxRecordsIn, maxBytesIn,
      recordsInPct: pct(recordsIn, maxRecordsIn), bytesInPct: pct(bytesIn, maxBytesIn) });
  }
  return bars;
}

/**
 * What the Balance form shows for a GET or POST .../balance answer:
 *   lines      what the last run did or is doing, then (when none runs) what the plan is
 *   planText   the plan as the broker wrote it: the running one's while it runs, else the fresh one
 *   brokers    rows {id, role, replicas: "3 → 2", leaders: "1 → 1", bytesIn: "1.2 KiB/s → 800 B/s" or '',
 *              size: "12.0 MiB" or '' (its logs now, as it reported them), changes}: now → after the plan
 *   bytesIn    whether the plan weighed measured bytes-in (then the bytesIn column is shown)
 *   running    whether to poll again; canExecute: whether "Balance now" makes sense (not balanced, none running)
 *   kind       'ok' | 'pending' | 'error' for the status colour
 */
export function balanceView(answer) {
  const run = answer.execution || null;
  const running = !!run && run.state === 'running';
  const lines = [];
  if (run) lines.push(executionLine(run));
  if (!running) {
    lines.push(answer.balanced ? t('balance.balanced')
      : t('balance.plan', (answer.moves || []).length, answer.replicas_to_copy, (answer.skipped || []).length));
  }
  const missing = answer.load_missing_from || [];
  if (missing.length > 0) lines.push(t('balance.loadMissing', idList(missing)));
  const bytesIn = !!answer.bytes_in_known;
  const rate = n => formatBytes(Math.round(n)) + '/s';
  const brokers = (answer.brokers || []).map(b => ({
    id: b.broker_id,
    role: has(`js.balance.role.${b.role}`) ? t(`balance.role.${b.role}`) : b.role,
    replicas: `${b.replicas_before} → ${b.replicas_after}`,
    leaders: `${b.preferred_leaders_before} → ${b.preferred_leaders_after}`,
    bytesIn: bytesIn && b.bytes_in_per_sec_before != null
      ? `${rate(b.bytes_in_per_sec_before)} → ${rate(b.bytes_in_per_sec_after)}` : '',
    size: b.size_bytes != null ? formatBytes(b.size_bytes) : '',
    changes: b.replicas_before !== b.replicas_after || b.preferred_leaders_before !== b.preferred_leaders_after,
  }));
  return {
    lines,
    planText: running && run.plan_text ? run.plan_text : answer.text || '',
    brokers,
    bytesIn,
    sizes: brokers.some(b => b.size !== ''),
    balanced: !!answer.balanced,
    running,
    canExecute: !answer.balanced && !running,
    kind: running ? 'pending' : run && run.state === 'failed' ? 'error' : 'ok',
  };
}

function executionLine(run) {
  if (run.state === 'running') {
    return t('balance.running', run.moves_done, run.moves_total, run.moves_in_flight, run.moves_failed);
  }
  if (run.state === 'failed') {
    const first = (run.failures || [])[0];
    const why = first ? `${first.topic_name}-${first.partition_id}: ${first.message}` : '';
    return t('balance.failed', run.moves_done, run.moves_total, run.moves_failed, why);
  }
  return t('balance.done', run.moves_done, run.moves_total);
}
