// The timeline's shape, PURE (no DOM), drawn by render-events.js and tested by js-tests/timeline.test.js.
//
// Grouped by cause: the controller marks each event it records with its place in its batch (`offset`, `index`)
// and, when another event of the same decision caused it, that event's index (`cause_index`): the leader
// elections and ISR shrinks of a broker's fencing, the elections an unfenced broker wins, a new topic's partitions.
// An event whose cause is on the list becomes that cause's child; one whose cause fell off the end of the history
// (or from a broker that predates the fields) stands alone. No grouping by time: only what the controller linked.
//
// Internal topics (names starting with "__", e.g. __consumer_offsets) are folded unless asked for: a cause's
// children about them are counted (`folded`), not listed; an entry about them alone is counted in `hidden`, and so is
// a group coordinator loading a partition of __consumer_offsets (`coordinator_loaded`).
import { isInternalTopic } from './state.js';
import { t, tn, lang, has } from './i18n.js';

export function isInternalEvent(e) {
  return isInternalTopic(e.topic);
}

/** A coordinator's event about a partition of __consumer_offsets rather than about a group. */
export function isInternalGroupEvent(e) {
  return e.type === 'coordinator_loaded';
}

/** An event's name: its batch's offset and its index there; null for an event without an index. */
export function eventId(e) {
  return Number.isInteger(e.index) ? `${e.offset}:${e.index}` : null;
}

/** The name of the event that caused `e`, or null. */
export function causeId(e) {
  return Number.isInteger(e.cause_index) && e.cause_index >= 0 ? `${e.offset}:${e.cause_index}` : null;
}

/**
 * The timeline, NEWEST first: {entries, hidden}. Each entry is {kind: 'cluster', event, t, children, folded} (the
 * children in batch order) or {kind: 'group', event, t}. At equal times group events come above cluster events (a
 * group reacts to the metadata), and later events of one list above earlier ones.
 */
export function groupedTimeline(events, groupEvents, showInternal) {
  const ids = new Set(events.map(eventId).filter(id => id !== null));
  const childrenOf = new Map();
  const top = [];
  for (const e of events) {
    const cause = causeId(e);
    if (cause !== null && ids.has(cause)) {
      if (!childrenOf.has(cause)) childrenOf.set(cause, []);
      childrenOf.get(cause).push(e);
    } else {
      top.push(e);
    }
  }
  let hidden = 0;
  const all = [];
  top.forEach((event, i) => {
    const children = childrenOf.get(eventId(event)) || [];
    if (!showInternal && isInternalEvent(event)) {
      hidden += 1 + children.length;
      return;
    }
    const shown = showInternal ? children : children.filter(c => !isInternalEvent(c));
    all.push({ kind: 'cluster', event, t: event.timestamp_ms, children: shown, folded: children.length - shown.length,
      i });
  });
  groupEvents.forEach((event, i) => {
    if (!showInternal && isInternalGroupEvent(event)) hidden++;
    else all.push({ kind: 'group', event, t: event.timestamp_ms, i: i + events.length });
  });
  all.sort((a, b) => b.t - a.t || b.i - a.i);
  return { entries: all.map(({ i, ...entry }) => entry), hidden };
}

/** "3 changes · 12 internal-topic changes folded": what a cause's entry says of its children. */
export function consequencesSummary(shown, folded) {
  const parts = [];
  if (shown > 0) parts.push(tn(shown, 'events.changes'));
  if (folded > 0) parts.push(tn(folded, 'events.folded'));
  return parts.join(' · ');
}

/** "orders-0 reassignment started: [1, 2, 3] → [2, 3, 4] (adding [4], removing [1])": partition, from, to, lists. */
function moveStep(verb) {
  const ids = '(\\[[\\d, ]*\\])';
  return new RegExp(`^(\\S+) reassignment ${verb}: ${ids} → ${ids} \\(adding ${ids}, removing ${ids}\\)$`);
}

/**
 * How a cluster event is said in the page's language: the catalogue's sentence js.events.text.<key>, filled from the
 * event's fields where they say all its English `text` says (the server writes the text in English only), or from
 * the numbers of the server's sentence read back where they carry what the fields lack (a leader change's epoch, an
 * ISR's members: ClusterEvents.java writes them in these forms). Anything else, or a sentence in another form, shows
 * the server's text. Each entry: [sentence key, pattern of the server's text or null, args(event, match) or null].
 */
const SAYINGS = {
  broker_fenced: [['broker_fenced', null, e => (e.broker_id >= 0 ? [e.broker_id] : null)]],
  broker_unfenced: [['broker_unfenced', null, e => (e.broker_id >= 0 ? [e.broker_id] : null)]],
  broker_unregistered: [['broker_unregistered', null, e => (e.broker_id >= 0 ? [e.broker_id] : null)]],
  topic_created: [['topic_created', null, e => (e.topic ? [e.topic] : null)]],
  topic_deleted: [['topic_deleted', null, e => (e.topic ? [e.topic] : null)]],
  controller_elected: [['controller_elected', /^broker (\d+) is the active controller \(Raft term (\d+)\)$/,
    (e, m) => [m[1], m[2]]]],
  broker_registered: [
    ['broker_registered_again', /^broker (\d+) registered again \(new process\) at (.+)$/, (e, m) => [m[1], m[2]]],
    ['broker_registered', /^broker (\d+) registered at (.+)$/, (e, m) => [m[1], m[2]]]],
  leader_changed: [
    ['leader_offline', /^(\S+) offline: leader (\d+) → none \(leader epoch (\d+)\)$/, (e, m) => [m[1], m[2], m[3]]],
    ['leader_changed', /^(\S+) leader (\d+|none) → (\d+) \(leader epoch (\d+)\)$/,
      (e, m) => [m[1], m[2] === 'none' ? t('partitions.noLeader') : m[2], m[3], m[4]]]],
  isr_shrink: [['isr_shrink', /^(\S+) ISR (\[[\d, ]*\]) → (\[[\d, ]*\]): replicas? ([\d, ]+) left$/,
    (e, m) => [m[1], m[2], m[3], m[4]]]],
  isr_expand: [['isr_expand', /^(\S+) ISR (\[[\d, ]*\]) → (\[[\d, ]*\]): replicas? ([\d, ]+) joined$/,
    (e, m) => [m[1], m[2], m[3], m[4]]]],
  partitions_added: [
    ['partition_added', /^partition (\S+) added on replicas (\[[\d, ]*\])$/, (e, m) => [m[1], m[2]]],
    ['partition_created', /^partition (\S+) on replicas (\[[\d, ]*\]), leader (\d+|none)$/,
      (e, m) => [m[1], m[2], m[3] === 'none' ? t('partitions.noLeader') : m[3]]],
    ['partitions_more', /^and (\d+) more partitions? of (\S+)$/, (e, m) => [m[1], m[2]]]],
  reassignment: [
    ['reassignment_started', moveStep('started'), (e, m) => m.slice(1, 6)],
    ['reassignment_retargeted', moveStep('retargeted'), (e, m) => m.slice(1, 6)],
    ['reassignment_completed', /^(\S+) reassignment completed: replicas (\[[\d, ]*\])$/, (e, m) => [m[1], m[2]]],
    ['reassignment_cancelled', /^(\S+) reassignment cancelled: replicas back to (\[[\d, ]*\])$/,
      (e, m) => [m[1], m[2]]],
    ['replicas_changed', /^(\S+) replicas (\[[\d, ]*\]) → (\[[\d, ]*\]) \(all in sync\)$/,
      (e, m) => [m[1], m[2], m[3]]]],
  fault_injected: [
    ['fault_cut_everyone', /^broker (\d+) cut off from every broker and client$/, (e, m) => [m[1]]],
    ['fault_cut_controller', /^broker (\d+) cut off from the controller \(broker (\d+)\)$/, (e, m) => [m[1], m[2]]],
    ['fault_cut_brokers', /^broker (\d+) cut off from the other brokers (\[[\d, ]*\]); clients still reach it$/,
      (e, m) => [m[1], m[2]]],
    ['fault_healed', /^every link restored$/, () => []],
    ['fault_cut_failed', /^cutting broker (\d+) off failed; its links are as they were$/, (e, m) => [m[1]]]],
  replica_truncated: [
    ['replica_truncated', /^replica (\d+) dropped offsets? (\d+(?:–\d+)?) that leader (\d+) never had \(leader epoch (\d+)\)$/,
      (e, m) => [m[1], m[2], m[3], m[4]]]],
};

/** The reasons the controller and the leaders give, by catalogue key: [key, pattern, args(match)]. */
const REASONS = [
  ['caughtUp', /^caught up with the metadata log$/, () => []],
  ['wonElection', /^won the metadata quorum's election$/, () => []],
  ['aboveHw', new RegExp('^above the high watermark \\((\\d+)\\): never committed, so no acks=all producer was told '
    + '(?:it was|they were) written; acks=1 or acks=0 producers may have been, and lost (?:it|them)$'), m => [m[1]]],
  ['replicaHw', /^the replica's high watermark was (\d+)$/, m => [m[1]]],
  ['dashboardNetwork', /^the dashboard's network action, through broker (\d+)$/, m => [m[1]]],
];

/** A cluster event's sentence in the page's language where it can be said from what the event carries, else the server's. */
export function eventText(e) {
  if (lang() === 'en') return e.text;
  for (const [key, pattern, args] of SAYINGS[e.type] || []) {
    const match = pattern ? pattern.exec(e.text || '') : [];
    const values = match && args(e, match);
    if (values && has(`js.events.text.${key}`)) return t(`events.text.${key}`, ...values);
  }
  return e.text;
}

/** A cluster event's reason in the page's language where it is one of the known ones, else the server's. */
export function eventReason(e) {
  if (!e.reason || lang() === 'en') return e.reason;
  for (const [key, pattern, args] of REASONS) {
    const match = pattern.exec(e.reason);
    if (match) return t(`events.reason.${key}`, ...args(match));
  }
  return e.reason;
}
