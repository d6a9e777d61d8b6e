// The consumer groups panel, #groups: one card per group (section.group[data-group="g"][data-state="Stable"]) with
// its state, generation, assignor and coordinator; a members table (tr[data-member="id"][data-via="rest|kafka"]:
// the member by client id, host and how it connects, assigned partitions) and a partitions table
// (tr[data-group-partition="t-p"]: member, committed offset, HW, lag). Members show as "consumer-1 (…a3f2)"
// (members.js); the full member id is the cell's tooltip.
//
// A delta redraws only the cards of the groups it names; a card's tables are rebuilt whole (a group has a few
// members and partitions, and its row changes only when the group does: a rebalance, a commit, the HW moving).
import { el, setText, setData, setClassName, setHidden } from './dom.js';
import { term, definition } from './glossary.js';
import { t } from './i18n.js';
import { sortedGroups, groupSummary, groupStateKind } from './state.js';
import { formatTime } from './format.js';
import { displayHost, memberVia } from './clients.js';
import { memberLabel } from './members.js';

export function createGroupsView(container, emptyNote) {
  const cards = new Map(); // group_id -> card
  let order = '';

  function render(state, changes) {
    if (!changes.full && changes.groups.size === 0) return;
    for (const [id, card] of cards) {
      if (!state.groups.has(id)) { card.root.remove(); cards.delete(id); }
    }
    const groups = sortedGroups(state);
    for (const g of groups) {
      let card = cards.get(g.group_id);
      if (!card) { card = buildCard(g.group_id); cards.set(g.group_id, card); }
      if (changes.full || changes.groups.has(g.group_id)) updateCard(card, g);
    }
    const ids = groups.map(g => g.group_id);
    if (ids.join('\u0000') !== order) {
      order = ids.join('\u0000');
      container.replaceChildren(...ids.map(id => cards.get(id).root));
    }
    setHidden(emptyNote, groups.length > 0);
  }
  return { render };
}

function buildCard(groupId) {
  const parts = {
    state: el('span', { class: 'badge', data: { field: 'state' } }),
    generation: el('span', { data: { field: 'generation' } }),
    protocol: el('span', { data: { field: 'protocol' } }),
    coordinator: el('span', { data: { field: 'coordinator' } }),
    lag: el('span', { data: { field: 'lag' } }),
    members: el('tbody'),
    partitions: el('tbody'),
    noMembers: el('p', { class: 'muted small', hidden: true }, t('groups.noMembers')),
  };
  const th = (...children) => el('th', { attrs: { scope: 'col' } }, ...children);
  const root = el('section', { class: 'group', data: { group: groupId } },
    el('div', { class: 'group-head' },
      el('h3', {}, el('span', { class: 'name' }, groupId)),
      parts.state,
      el('span', { class: 'group-facts' }, parts.generation, parts.protocol, parts.coordinator, parts.lag)),
    el('div', { class: 'group-body' },
      el('div', { class: 'table-wrap' }, el('table', { class: 'members' },
        el('thead', {}, el('tr', {}, th(term('member_id', t('groups.col.member')), t('groups.col.by'),
          term('client_id', 'client id')), th(t('groups.col.hostVia')), th(t('groups.col.assigned')))),
        parts.members)),
      parts.noMembers,
      el('div', { class: 'table-wrap' }, el('table', { class: 'group-partitions' },
        el('thead', {}, el('tr', {}, th(term('partition', t('groups.col.partition'))), th(t('groups.col.member')),
          th(term('committed_offset', t('groups.col.committed'))), th(term('hw', 'HW')),
          th(term('consumer_lag', t('groups.col.lag'))))),
        parts.partitions))));
  return { root, parts };
}

function updateCard(card, g) {
  const { root, parts } = card;
  const summary = groupSummary(g);
  setData(root, 'state', g.state);
  setData(root, 'generation', g.generation_id);
  setData(root, 'coordinator', g.coordinator);
  setData(root, 'members', summary.members);
  setData(root, 'lag', summary.lag ?? '');

  setText(parts.state, g.state);
  setClassName(parts.state, 'badge ' + groupStateKind(g.state));
  parts.state.title = definition('rebalance')
    + (g.state_since_ms ? t('groups.stateSince', formatTime(g.state_since_ms)) : '');
  setText(parts.generation, t('groups.generation', g.generation_id));
  parts.generation.title = definition('generation');
  setText(parts.protocol, g.protocol ? t('groups.assignor', g.protocol) : t('groups.noAssignor'));
  parts.protocol.title = t('groups.protocolType', g.protocol_type || '—');
  setText(parts.coordinator, t('groups.coordinator', g.coordinator));
  parts.coordinator.title = definition('coordinator') + t('groups.livesIn', g.coordinator_partition);
  setText(parts.lag, summary.lag === null ? t('groups.lagUnknown') : t('groups.lag', summary.lag));
  parts.lag.title = definition('consumer_lag');

  const clientOf = new Map((g.members || []).map(m => [m.member_id, m.client_id]));
  parts.members.replaceChildren(...(g.members || []).map(m => memberRow(m, g.leader_id)));
  setHidden(parts.noMembers, (g.members || []).length > 0);
  setHidden(parts.members.parentElement, (g.members || []).length === 0);
  parts.partitions.replaceChildren(...(g.partitions || []).map(p => partitionRow(p, clientOf)));
}

function memberRow(m, leaderId) {
  const leader = m.member_id === leaderId;
  const via = memberVia(m);
  return el('tr', { data: { member: m.member_id, clientId: m.client_id, host: m.host, via,
    partitions: (m.partitions || []).join(',') } },
  el('td', { class: 'member-id', title: t('groups.memberId', m.member_id)
    + (leader ? t('groups.memberLeader') : '') },
  memberLabel(m.member_id, m.client_id), leader ? el('span', { class: 'badge controller' }, t('groups.leader')) : null),
  el('td', { title: via === 'rest' ? t('groups.viaRest', m.host.replace('-', ' ')) : t('groups.viaKafka') },
  displayHost(m.host), ' ', el('span', { class: 'muted small' }, via === 'rest' ? 'REST' : 'Kafka')),
  el('td', { class: 'ids' }, (m.partitions || []).length ? m.partitions.join(', ') : t('groups.waiting')));
}

function partitionRow(p, clientOf) {
  const committed = p.committed_offset ?? null;
  const lag = p.lag ?? null;
  return el('tr', { data: { groupPartition: p.key, member: p.member_id ?? '', committed: committed ?? '',
    hw: p.high_watermark ?? '', lag: lag ?? '' } },
  el('td', { class: 'pid' }, p.key),
  el('td', { title: p.member_id ? t('groups.memberId', p.member_id) : '' },
    p.member_id ? memberLabel(p.member_id, clientOf.get(p.member_id)) : el('span', { class: 'muted' }, t('groups.unassigned'))),
  el('td', { class: 'num', title: committed === null ? t('groups.nothingCommitted') : '' },
    committed === null ? '—' : committed),
  el('td', { class: 'num' }, p.high_watermark ?? '—'),
  el('td', { class: 'num' + (lag > 0 ? ' warn-text' : ''), title: lag === null ? t('groups.lagNotAnswering') : '' },
    lag === null ? '—' : lag));
}
