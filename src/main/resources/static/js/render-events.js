// The timeline, #events: the cluster's metadata events newest first, li[data-type="..."]. A snapshot redraws the
// list; a delta only prepends its new events and trims the oldest, so the list never costs more than its news.
import { el } from './dom.js';
import { definition } from './glossary.js';
import { MAX_EVENTS } from './state.js';
import { formatTime } from './format.js';

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
  group_rebalance: ['↻', 'group rebalance', 'muted'],
};

const TYPE_HOVER = {
  broker_fenced: definition('fenced'),
  isr_shrink: definition('osr'),
  isr_expand: definition('isr'),
  leader_changed: definition('leader_epoch'),
  controller_elected: definition('controller'),
};

export function createEventsView(list, emptyNote) {
  function render(state, changes) {
    if (changes.full) {
      list.replaceChildren(...state.events.slice().reverse().map(eventItem));
    } else if (changes.events.length > 0) {
      list.prepend(...changes.events.slice().reverse().map(eventItem));
      while (list.children.length > MAX_EVENTS) list.lastElementChild.remove();
    }
    emptyNote.hidden = list.children.length > 0;
  }
  return { render };
}

function eventItem(e) {
  const [glyph, label, kind] = TYPES[e.type] || ['•', e.type.replaceAll('_', ' '), 'muted'];
  return el('li', { data: { type: e.type, offset: e.offset } },
    el('time', { dateTime: new Date(e.timestamp_ms).toISOString(), title: new Date(e.timestamp_ms).toString() },
      formatTime(e.timestamp_ms)),
    el('div', { class: 'ebody' },
      el('span', { class: 'etype ' + kind, title: TYPE_HOVER[e.type] },
        el('span', { attrs: { 'aria-hidden': 'true' } }, glyph), ' ' + label),
      ' ',
      el('span', { class: 'etext' }, where(e), e.text),
      e.reason ? el('span', { class: 'ereason' }, e.reason) : null));
}

/** "orders-0: " / "orders: " / "" — events about a partition or topic name it before their text. */
function where(e) {
  if (!e.topic) return '';
  return el('b', {}, (e.partition >= 0 ? `${e.topic}-${e.partition}` : e.topic) + ': ');
}
