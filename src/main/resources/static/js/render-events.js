// The timeline, #events: the controller's cluster events and the group coordinators' events, interleaved by time,
// newest first (timeline.js gives the shape). li[data-kind="cluster"|"group"][data-type="..."]; group events are
// marked (a "group" tag and a coloured edge). A cluster event that caused others (a broker fenced, registered or
// unfenced, a topic created) is one entry, li[data-consequences=N][data-folded=M], whose <details> expands to them
// (nested li of their own types); internal-topic rows are folded unless #show-internal-events is ticked (kept in
// localStorage). Group events name members by client id (members.js), the full member id in the tooltip.
//
// The list is redrawn when events arrive or the box is ticked: events are rare next to the deltas (a few per
// failover), and a redraw keeps the grouping exact when a cause and its consequences arrive apart. Expanded
// entries stay expanded across redraws.
import { el, setText, setHidden } from './dom.js';
import { definition } from './glossary.js';
import { MAX_EVENTS } from './state.js';
import { formatTime } from './format.js';
import { groupedTimeline, eventId, consequencesSummary, eventText, eventReason } from './timeline.js';
import { t, tn, has } from './i18n.js';
import { memberParts, clientIdsOfGroups } from './members.js';

/** Both kinds of events are kept up to MAX_EVENTS each. */
const MAX_ITEMS = 2 * MAX_EVENTS;

const SHOW_INTERNAL_KEY = 'tributary.timeline.showInternal';

/** Per type: a glyph and the kind that colours it; the label (which carries the meaning) is js.events.type.<type>. */
const TYPES = {
  controller_elected: ['♛', 'controller'],
  broker_registered: ['+', 'ok'],
  broker_fenced: ['✖', 'bad'],
  broker_unfenced: ['✔', 'ok'],
  broker_unregistered: ['−', 'muted'],
  topic_created: ['+', 'ok'],
  topic_deleted: ['−', 'muted'],
  partitions_added: ['+', 'ok'],
  config_changed: ['•', 'muted'],
  leader_changed: ['★', 'controller'],
  isr_shrink: ['▼', 'warn'],
  isr_expand: ['▲', 'ok'],
  reassignment: ['⇄', 'controller'],
  replica_truncated: ['✂', 'bad'],
  fault_injected: ['⚡', 'warn'],
};

/** The group coordinators' event types. */
const GROUP_TYPES = {
  rebalance_started: ['↻', 'warn'],
  rebalance_completed: ['✔', 'ok'],
  member_removed: ['−', 'warn'],
  group_empty: ['∅', 'muted'],
  coordinator_loaded: ['⇣', 'controller'],
};

/** The glossary term whose definition is a type's hover. */
const TYPE_HOVER = {
  broker_fenced: 'fenced',
  isr_shrink: 'osr',
  isr_expand: 'isr',
  leader_changed: 'leader_epoch',
  reassignment: 'reassignment',
  replica_truncated: 'truncation',
  controller_elected: 'controller',
  rebalance_started: 'rebalance',
  rebalance_completed: 'generation',
  member_removed: 'rebalance',
  coordinator_loaded: 'coordinator',
};

/** [glyph, label, kind] of a type; an unknown type shows its name. */
function typeOf(table, type) {
  const [glyph, kind] = table[type] || ['•', 'muted'];
  const label = has(`js.events.type.${type}`) ? t(`events.type.${type}`) : type.replaceAll('_', ' ');
  return [glyph, label, kind];
}

function hover(type) {
  return TYPE_HOVER[type] ? definition(TYPE_HOVER[type]) : undefined;
}

export function createEventsView(list, emptyNote) {
  const toggle = document.getElementById('show-internal-events');
  const hiddenNote = document.getElementById('internal-events-hidden');
  const expanded = new Set(); // eventId of the entries the user opened
  let showInternal = loadShowInternal();
  let lastState = null;
  if (toggle) {
    toggle.checked = showInternal;
    toggle.addEventListener('change', () => {
      showInternal = toggle.checked;
      saveShowInternal(showInternal);
      if (lastState) draw(lastState);
    });
  }

  function render(state, changes) {
    lastState = state;
    if (changes.full || changes.events.length > 0 || changes.groupEvents.length > 0) draw(state);
  }

  function draw(state) {
    const { entries, hidden } = groupedTimeline(state.events, state.groupEvents, showInternal);
    const known = clientIdsOfGroups(state.groups.values());
    list.replaceChildren(...entries.slice(0, MAX_ITEMS).map(entry => item(entry, known, expanded)));
    emptyNote.hidden = list.children.length > 0;
    if (hiddenNote) {
      setText(hiddenNote, hidden > 0 ? tn(hidden, 'events.internalHidden') : '');
      setHidden(hiddenNote, hidden === 0);
    }
  }
  return { render };
}

function loadShowInternal() {
  try {
    return localStorage.getItem(SHOW_INTERNAL_KEY) === 'true';
  } catch (e) {
    return false; // storage refused (a privacy mode): the default
  }
}

function saveShowInternal(on) {
  try {
    localStorage.setItem(SHOW_INTERNAL_KEY, String(on));
  } catch (e) {
    // not remembered; the box still works for this page
  }
}

function item(entry, known, expanded) {
  return entry.kind === 'group' ? groupEventItem(entry.event, known) : causeItem(entry, expanded);
}

/** A cluster event, with the events it caused behind a disclosure when it caused any. */
function causeItem({ event: e, children, folded }, expanded) {
  const node = eventItem(e);
  if (children.length === 0 && folded === 0) return node;
  node.dataset.consequences = String(children.length);
  node.dataset.folded = String(folded);
  const count = el('span', { class: 'ecount', title: folded > 0 ? t('events.foldedTitle') : '' },
    consequencesSummary(children.length, folded));
  const body = node.querySelector('.ebody');
  if (children.length === 0) {
    body.append(count);
    return node;
  }
  const id = eventId(e);
  const details = el('details', { open: expanded.has(id) },
    el('summary', { title: t('events.causedTitle') }, ...body.childNodes, count),
    // A consequence's reason is its cause's (one decision): said once, above.
    el('ol', { class: 'consequences' }, ...children.map(c => eventItem(c.reason === e.reason ? { ...c, reason: null } : c))));
  details.addEventListener('toggle', () => (details.open ? expanded.add(id) : expanded.delete(id)));
  body.replaceChildren(details);
  return node;
}

function eventItem(e) {
  const [glyph, label, kind] = typeOf(TYPES, e.type);
  return el('li', { data: { kind: 'cluster', type: e.type, offset: e.offset, index: e.index ?? '', broker: e.broker_id,
    ts: e.timestamp_ms } },
    time(e.timestamp_ms),
    el('div', { class: 'ebody' },
      typeLabel(glyph, label, kind, hover(e.type)),
      ' ',
      el('span', { class: 'etext' }, where(e), eventText(e)),
      e.reason ? el('span', { class: 'ereason' }, eventReason(e)) : null));
}

function groupEventItem(e, known) {
  const [glyph, label, kind] = typeOf(GROUP_TYPES, e.type);
  return el('li', { class: 'group-event', data: { kind: 'group', type: e.type, group: e.group_id,
    ts: e.timestamp_ms }, title: t('events.recordedBy', e.coordinator) },
  time(e.timestamp_ms),
  el('div', { class: 'ebody' },
    el('span', { class: 'etag', title: definition('consumer_group') }, t('events.groupTag')),
    ' ',
    typeLabel(glyph, label, kind, hover(e.type)),
    ' ',
    // The coordinator's text names the group, and members by id: shown by client id.
    el('span', { class: 'etext' }, ...memberParts(e.text, { ...Object.fromEntries(known), ...(e.members || {}) })
      .map(part => (typeof part === 'string' ? part
        : el('span', { class: 'member', title: part.memberId, data: { member: part.memberId } }, part.label)))),
    el('span', { class: 'ereason' }, t('events.coordinator', e.coordinator)
      + (e.generation_id >= 0 ? t('events.generation', e.generation_id) : ''))));
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
