// The timeline, #events: the controller's cluster events and the group coordinators' events, interleaved by time,
// newest first. li[data-kind="cluster"|"group"][data-type="..."]; group events are marked (a "group" tag and a
// coloured edge). A snapshot redraws the list; a delta inserts only its new entries at their place by time (group
// events come from several coordinators' answers, so one can be older than the newest shown) and trims the oldest,
// so the list never costs more than its news.
import { el } from './dom.js';
import { definition } from './glossary.js';
import { MAX_EVENTS, timeline } from './state.js';
import { formatTime } from './format.js';

/** Both kinds of events are kept up to MAX_EVENTS each. */
const MAX_ITEMS = 2 * MAX_EVENTS;

/** Per type: a glyph, a short label and the kind that colours it (the label carries the meaning). */
const TYPES = {
  controller_elected: ['♛', 'controller elected', 'controller'],
  broker_registered: ['+', 'broker registered', 'ok'],
  broker_fenced: ['✖', 'broker fenced', 'bad'],
  broker_unfenced: ['✔', 'broker unfenced', 'ok'],
  topic_created: ['+', 'topic created', 'ok'],
  topic_deleted: ['−', 'topic deleted', 'muted'],
  partitions_added: ['+', 'partitions added', 'ok'],
  config_changed: ['•', 'config changed', 'muted'],
  leader_changed: ['★', 'leader changed', 'controller'],
  isr_shrink: ['▼', 'ISR shrink', 'warn'],
  isr_expand: ['▲', 'ISR expand', 'ok'],
  replica_truncated: ['✂', 'replica truncated', 'bad'],
};

/** The group coordinators' event types. */
const GROUP_TYPES = {
  rebalance_started: ['↻', 'rebalance started', 'warn'],
  rebalance_completed: ['✔', 'generation complete', 'ok'],
  member_removed: ['−', 'member removed', 'warn'],
  group_empty: ['∅', 'group empty', 'muted'],
  coordinator_loaded: ['⇣', 'coordinator loaded', 'controller'],
};

const TYPE_HOVER = {
  broker_fenced: definition('fenced'),
  isr_shrink: definition('osr'),
  isr_expand: definition('isr'),
  leader_changed: definition('leader_epoch'),
  replica_truncated: definition('truncation'),
  controller_elected: definition('controller'),
  rebalance_started: definition('rebalance'),
  rebalance_completed: definition('generation'),
  member_removed: definition('rebalance'),
  coordinator_loaded: definition('coordinator'),
};

export function createEventsView(list, emptyNote) {
  function render(state, changes) {
    if (changes.full) {
      list.replaceChildren(...timeline(state.events, state.groupEvents).slice(0, MAX_ITEMS).map(item));
    } else if (changes.events.length > 0 || changes.groupEvents.length > 0) {
      for (const entry of timeline(changes.events, changes.groupEvents).reverse()) insert(item(entry), entry.t);
      while (list.children.length > MAX_ITEMS) list.lastElementChild.remove();
    }
    emptyNote.hidden = list.children.length > 0;
  }

  /** Above the first entry that is not newer: usually the very top, so this costs one comparison. */
  function insert(node, t) {
    let before = list.firstElementChild;
    while (before && Number(before.dataset.ts) > t) before = before.nextElementSibling;
    list.insertBefore(node, before);
  }
  return { render };
}

function item({ kind, event }) {
  return kind === 'group' ? groupEventItem(event) : eventItem(event);
}

function eventItem(e) {
  const [glyph, label, kind] = TYPES[e.type] || ['•', e.type.replaceAll('_', ' '), 'muted'];
  return el('li', { data: { kind: 'cluster', type: e.type, offset: e.offset, ts: e.timestamp_ms } },
    time(e.timestamp_ms),
    el('div', { class: 'ebody' },
      typeLabel(glyph, label, kind, TYPE_HOVER[e.type]),
      ' ',
      el('span', { class: 'etext' }, where(e), e.text),
      e.reason ? el('span', { class: 'ereason' }, e.reason) : null));
}

function groupEventItem(e) {
  const [glyph, label, kind] = GROUP_TYPES[e.type] || ['•', e.type.replaceAll('_', ' '), 'muted'];
  return el('li', { class: 'group-event', data: { kind: 'group', type: e.type, group: e.group_id,
    ts: e.timestamp_ms }, title: `Recorded by the group coordinator on broker ${e.coordinator}` },
  time(e.timestamp_ms),
  el('div', { class: 'ebody' },
    el('span', { class: 'etag', title: definition('consumer_group') }, 'group'),
    ' ',
    typeLabel(glyph, label, kind, TYPE_HOVER[e.type]),
    ' ',
    el('span', { class: 'etext' }, e.text), // the coordinator's text names the group
    el('span', { class: 'ereason' }, `coordinator: broker ${e.coordinator}`
      + (e.generation_id >= 0 ? ` · generation ${e.generation_id}` : ''))));
}

function time(ms) {
  return el('time', { dateTime: new Date(ms).toISOString(), title: new Date(ms).toString() }, formatTime(ms));
}

function typeLabel(glyph, label, kind, hover) {
  return el('span', { class: 'etype ' + kind, title: hover },
    el('span', { attrs: { 'aria-hidden': 'true' } }, glyph), ' ' + label);
}

/** "orders-0: " / "orders: " / "" — events about a partition or topic name it before their text. */
function where(e) {
  if (!e.topic) return '';
  return el('b', {}, (e.partition >= 0 ? `${e.topic}-${e.partition}` : e.topic) + ': ');
}
