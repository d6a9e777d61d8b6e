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

/**
 * The fields a cluster event's sentence takes, by type, for the types whose structured fields say all its English
 * `text` says (the server writes the text in English only). Other types show the server's text.
 */
const TEXT_ARGS = {
  broker_fenced: e => (e.broker_id >= 0 ? [e.broker_id] : null),
  broker_unfenced: e => (e.broker_id >= 0 ? [e.broker_id] : null),
  topic_created: e => (e.topic ? [e.topic] : null),
  topic_deleted: e => (e.topic ? [e.topic] : null),
  controller_elected: e => {
    const term = /\(Raft term (\d+)\)$/.exec(e.text || '');
    return e.broker_id >= 0 && term ? [e.broker_id, term[1]] : null;
  },
};

/** The reasons the controller gives in fixed words, by their catalogue key. */
const REASONS = {
  'caught up with the metadata log': 'events.reason.caughtUp',
  'won the metadata quorum\'s election': 'events.reason.wonElection',
};

/** A cluster event's sentence in the page's language: from its fields where they say it all, else the server's. */
export function eventText(e) {
  const args = lang() === 'en' || !TEXT_ARGS[e.type] ? null : TEXT_ARGS[e.type](e);
  return args && has(`js.events.text.${e.type}`) ? t(`events.text.${e.type}`, ...args) : e.text;
}

/** A cluster event's reason in the page's language where it is one of the fixed ones, else the server's. */
export function eventReason(e) {
  if (!e.reason) return e.reason;
  return lang() !== 'en' && REASONS[e.reason] ? t(REASONS[e.reason]) : e.reason;
}
