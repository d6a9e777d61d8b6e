// The partitions panel: one collapsible group per topic (#partitions .topic[data-topic="t"]) with a summary, a
// table of at most PAGE_SIZE rows (tr[data-partition="t-p"]) and prev/next paging. Above it, a topic-name filter
// and "only under-replicated / offline". Internal topics (__consumer_offsets) come last, muted, collapsed until
// opened, and cannot be deleted from here. Each row's "move" button (admin only) fills the Move replicas form.
//
// Why it stays fast at 1,000 partitions: only the rows of the current page of an expanded group are in the DOM; a
// delta updates just the rows whose partition changed, through setters that skip unchanged values; a group's rows
// are re-listed only when its visible set changes (paging, filter, partitions added or removed).
import { el, setText, setData, setAttr, setClass, setHidden, setClassName, badge } from './dom.js';
import { term, definition } from './glossary.js';
import { t } from './i18n.js';
import { partitionsByTopic, topicSummary, partitionHealth, isProblem, isBelowMinIsr, isInternalTopic, lagTimeMaxMsOf,
  truncationsByPartition, demoMarks, reassignmentOf } from './state.js';
import { formatBytes, idList } from './format.js';
import { createReplicas, updateReplicas } from './render-replicas.js';
import { eventText, eventReason } from './timeline.js';

export const PAGE_SIZE = 50;

/** Per health: the badge's text, its colour and its hover (looked up when drawn: the catalogue may load late). */
const HEALTH_BADGE = {
  ok: () => [t('partitions.health.ok'), 'ok', t('partitions.health.okTitle')],
  under_replicated: () => [t('partitions.health.underReplicated'), 'warn', definition('under_replicated')],
  offline: () => [t('partitions.health.offline'), 'bad', definition('offline')],
  unreachable: () => [t('partitions.health.unreachable'), 'warn', definition('unreachable')],
  leader_not_available: () => [t('partitions.health.noLeader'), 'warn', t('partitions.health.noLeaderTitle')],
};

/**
 * @param {{container: Element, filterInput: HTMLInputElement, problemsCheckbox: HTMLInputElement,
 *          summary: Element, empty: Element, noMatch: Element, onDeleteTopic: (topic: string) => void,
 *          onMoveReplicas: (topic: string, partition: number) => void}} dom
 */
export function createPartitionsView(dom) {
  const view = { filter: '', onlyProblems: false, collapsed: new Set(), pages: new Map() };
  const groups = new Map(); // topic -> group
  let lastState = null;
  let groupOrder = '';
  let truncations = new Map(); // partition key -> its newest replica_truncated event
  let marks = demoMarks({ demo: null }); // what the running demo uses (demoMarks in state.js)

  /** A new truncation event redraws its partition's row (the ✂ mark), though the partition row itself did not change. */
  function withTruncatedRows(changes) {
    const keys = (changes.events || []).filter(e => e.type === 'replica_truncated').map(e => `${e.topic}-${e.partition}`);
    if (keys.length === 0) return changes;
    return { ...changes, partitions: new Set([...changes.partitions, ...keys]) };
  }

  dom.filterInput.addEventListener('input', () => { view.filter = dom.filterInput.value.trim().toLowerCase(); redraw(); });
  dom.problemsCheckbox.addEventListener('change', () => { view.onlyProblems = dom.problemsCheckbox.checked; redraw(); });
  dom.container.addEventListener('click', event => {
    const button = event.target.closest('button[data-action="move-replicas"]');
    if (button && dom.onMoveReplicas) dom.onMoveReplicas(button.dataset.topic, Number(button.dataset.partitionId));
  });

  /** A view change (filter, page, collapse) redraws every group from the last state; no server data changed. */
  function redraw() {
    if (lastState) render(lastState, { full: true, partitions: new Set(), topics: true });
  }

  function render(state, changes) {
    lastState = state;
    truncations = truncationsByPartition(state.events);
    marks = demoMarks(state);
    changes = withTruncatedRows(changes);
    if (changes.demo) changes = { ...changes, topics: true }; // a demo started, moved on or ended: every row
    if (!changes.full && !changes.topics && changes.partitions.size === 0) return; // e.g. a heartbeat
    const byTopic = partitionsByTopic(state);
    removeVanishedGroups(byTopic);
    let shownGroups = 0;
    for (const [topic, partitions] of byTopic) {
      const group = groups.get(topic) ?? createGroup(topic);
      if (renderGroup(group, partitions, state.topics.get(topic), changes)) shownGroups++;
    }
    const order = [...byTopic.keys()];
    if (order.join('\u0000') !== groupOrder) { // a topic was added or removed: restore sorted order
      groupOrder = order.join('\u0000');
      dom.container.replaceChildren(...order.map(t => groups.get(t).root));
    }
    renderOverall(state, byTopic.size, shownGroups);
  }

  function removeVanishedGroups(byTopic) {
    for (const [topic, group] of groups) {
      if (!byTopic.has(topic)) { group.root.remove(); groups.delete(topic); view.pages.delete(topic); }
    }
  }

  function renderOverall(state, topicCount, shownGroups) {
    const all = [...state.partitions.values()];
    const s = topicSummary(all);
    setText(dom.summary, t('partitions.summary', s.partitions, topicCount, s.underReplicated, s.offline)
      + (s.unreachable ? t('partitions.summary.unreachable', s.unreachable) : ''));
    setClass(dom.summary, 'has-problems', s.underReplicated + s.offline + s.unreachable > 0);
    setHidden(dom.empty, topicCount > 0);
    setHidden(dom.noMatch, topicCount === 0 || shownGroups > 0);
  }

  function createGroup(topic) {
    const toggle = el('button', { type: 'button', class: 'toggle', attrs: { 'aria-expanded': 'true' } },
      el('span', { class: 'chevron', attrs: { 'aria-hidden': 'true' } }, '▾'), ' ', el('span', { class: 'name' }, topic));
    const summary = {
      partitions: el('span', { data: { summary: 'partitions' } }),
      config: el('span', { class: 'muted', data: { summary: 'config' } }),
      underReplicated: el('span', { data: { summary: 'under-replicated' }, title: definition('under_replicated') }),
      offline: el('span', { data: { summary: 'offline' }, title: definition('offline') }),
    };
    const internal = isInternalTopic(topic);
    if (internal) view.collapsed.add(topic); // 10 partitions of bookkeeping: out of the way until asked for
    const del = internal
      ? el('span', { class: 'badge muted', title: definition('internal_topic') }, t('partitions.internal'))
      : el('button', { type: 'button', class: 'danger small', data: { action: 'delete-topic', topic } },
        t('partitions.delete'));
    const tbody = el('tbody');
    const pager = {
      prev: el('button', { type: 'button', class: 'small', data: { page: 'prev' } }, t('partitions.prev')),
      text: el('span', { class: 'muted' }),
      next: el('button', { type: 'button', class: 'small', data: { page: 'next' } }, t('partitions.next')),
    };
    const pagerRoot = el('div', { class: 'pager', hidden: true }, pager.prev, pager.text, pager.next);
    const body = el('div', { class: 'topic-body' },
      el('div', { class: 'table-wrap' }, el('table', { class: 'partitions' }, tableHead(), tbody)), pagerRoot);
    const root = el('section', { class: internal ? 'topic internal' : 'topic', data: { topic, expanded: 'true' } },
      el('div', { class: 'topic-head' }, toggle,
        el('span', { class: 'topic-summary' }, summary.partitions, summary.config, summary.underReplicated,
          summary.offline),
        del),
      body);
    const group = { topic, root, toggle, summary, del, tbody, body, pager, pagerRoot, rows: new Map(), keys: '' };

    toggle.addEventListener('click', () => {
      if (view.collapsed.has(topic)) view.collapsed.delete(topic); else view.collapsed.add(topic);
      redraw();
    });
    pager.prev.addEventListener('click', () => { view.pages.set(topic, (view.pages.get(topic) || 0) - 1); redraw(); });
    pager.next.addEventListener('click', () => { view.pages.set(topic, (view.pages.get(topic) || 0) + 1); redraw(); });
    if (!internal) armDelete(del, () => dom.onDeleteTopic(topic));
    groups.set(topic, group);
    return group;
  }

  /** Draws one topic group; returns whether it is shown at all under the current filters. */
  function renderGroup(group, partitions, topic, changes) {
    const matchesName = view.filter === '' || group.topic.toLowerCase().includes(view.filter);
    const listed = view.onlyProblems ? partitions.filter(isProblem) : partitions;
    const shown = matchesName && (!view.onlyProblems || listed.length > 0);
    setHidden(group.root, !shown);
    renderSummary(group, partitions, topic);
    setData(group.root, 'demo', marks.topics.has(group.topic) ? '1' : '');
    setClass(group.root, 'demo-highlight', marks.topics.has(group.topic));
    const expanded = !view.collapsed.has(group.topic);
    setData(group.root, 'expanded', expanded);
    setAttr(group.toggle, 'aria-expanded', expanded);
    setText(group.toggle.firstChild, expanded ? '▾' : '▸');
    setHidden(group.body, !expanded);
    if (!shown || !expanded) { // nothing of it in the DOM: its rows get no updates until it is shown again
      if (group.keys !== '') { group.tbody.replaceChildren(); group.rows.clear(); group.keys = ''; }
      return shown;
    }
    const page = pageOf(group.topic, listed.length);
    const visible = listed.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
    renderPager(group, page, listed.length);
    const keys = visible.map(p => p.key).join('\u0000');
    const everyRow = changes.full || changes.topics;
    if (keys !== group.keys) relist(group, visible, topic, keys);
    for (const p of visible) {
      if (!everyRow && !changes.partitions.has(p.key)) continue;
      updateRow(group.rows.get(p.key), p, topic, lagTimeMaxMsOf(lastState, p.leader), truncations.get(p.key),
        marks.marksRow(p));
    }
    return shown;
  }

  function pageOf(topic, count) {
    const last = Math.max(0, Math.ceil(count / PAGE_SIZE) - 1);
    const page = Math.min(Math.max(0, view.pages.get(topic) || 0), last);
    view.pages.set(topic, page);
    return page;
  }

  /** The visible set changed: reuse the rows still visible, build the new ones, drop the rest. */
  function relist(group, visible, topic, keys) {
    const rows = new Map();
    for (const p of visible) {
      let row = group.rows.get(p.key);
      if (!row) {
        row = buildRow();
        updateRow(row, p, topic, lagTimeMaxMsOf(lastState, p.leader), truncations.get(p.key), marks.marksRow(p));
      }
      rows.set(p.key, row);
    }
    group.rows = rows;
    group.keys = keys;
    group.tbody.replaceChildren(...rows.values());
  }

  function renderPager(group, page, count) {
    setHidden(group.pagerRoot, count <= PAGE_SIZE);
    const from = count === 0 ? 0 : page * PAGE_SIZE + 1;
    setText(group.pager.text, t('partitions.page', from, Math.min(count, (page + 1) * PAGE_SIZE), count));
    group.pager.prev.disabled = page === 0;
    group.pager.next.disabled = (page + 1) * PAGE_SIZE >= count;
  }

  return { render };
}

function renderSummary(group, partitions, topic) {
  const s = topicSummary(partitions);
  setText(group.summary.partitions, t('partitions.count', s.partitions));
  setText(group.summary.config, topic ? t('partitions.config', topic.replication_factor, topic.min_insync_replicas) : '');
  setText(group.summary.underReplicated, t('partitions.underReplicated', s.underReplicated));
  setText(group.summary.offline, t('partitions.offline', s.offline));
  setClass(group.summary.underReplicated, 'warn-text', s.underReplicated > 0);
  setClass(group.summary.offline, 'bad-text', s.offline > 0);
  setData(group.root, 'underReplicated', s.underReplicated);
  setData(group.root, 'offline', s.offline);
}

/** "Delete topic" asks inline: the first click arms it for 4 s, the second deletes. No modal dialog. */
function armDelete(button, onConfirm) {
  let timer = null;
  button.addEventListener('click', () => {
    if (button.dataset.confirm === 'pending') {
      clearTimeout(timer);
      delete button.dataset.confirm;
      button.textContent = t('partitions.delete');
      onConfirm();
      return;
    }
    button.dataset.confirm = 'pending';
    button.textContent = t('partitions.reallyDelete');
    timer = setTimeout(() => { delete button.dataset.confirm; button.textContent = t('partitions.delete'); }, 4000);
  });
}

function tableHead() {
  const th = (...children) => el('th', { attrs: { scope: 'col' } }, ...children);
  return el('thead', {}, el('tr', {},
    th(term('partition', t('partitions.col.partition'))),
    th(t('partitions.col.state')),
    th(term('leader', t('partitions.col.leader'))),
    th(term('leader_epoch', t('partitions.col.epoch'))),
    th(term('isr', 'ISR')),
    th(term('osr', 'OSR')),
    th(el('abbr', { title: t('partitions.col.replicasTitle', definition('ar'), definition('leo'), definition('hw'),
      definition('lag_time')) }, t('partitions.col.replicas'))),
    th(term('hw', 'HW')),
    th(term('leo', 'LEO')),
    el('th', { class: 'col-size', attrs: { scope: 'col' } }, t('partitions.col.size')),
    el('th', { class: 'col-move', attrs: { scope: 'col' } }, t('partitions.col.move'))));
}

function buildRow() {
  const td = cls => el('td', cls ? { class: cls } : {});
  const row = el('tr', {}, td('pid'), td('state'), td('leader'), td('num'), td('ids'), td('ids'), td('bars'),
    td('num'), td('num'), td('num col-size'), td('col-move'));
  row.cells[1].append(badge('', 'ok'), ' ', badge(t('partitions.belowMinIsr'), 'bad', definition('below_min_isr')), ' ',
    badge(t('partitions.truncated'), 'bad', definition('truncation')), ' ', badge('', 'controller moving'));
  row.cells[6].append(createReplicas());
  row.cells[10].append(el('button', { type: 'button', class: 'small', title: t('partitions.moveTitle'),
    data: { action: 'move-replicas' } }, t('partitions.move')));
  return row;
}

/**
 * @param lagTimeMaxMs the leader's replica.lag.time.max.ms (null when unknown), for the followers' lag timers
 * @param truncation the partition's newest replica_truncated event in the timeline, or undefined
 * @param inDemo whether the running demo uses this partition (data-demo="1", class demo-highlight)
 */
function updateRow(row, p, topic, lagTimeMaxMs, truncation, inDemo) {
  const o = p.state === 'online' ? p.offsets : null;
  const health = partitionHealth(p);
  setData(row, 'partition', p.key);
  setData(row, 'state', p.state);
  setData(row, 'health', health);
  setData(row, 'leader', p.leader);
  setData(row, 'leaderEpoch', p.leader_epoch);
  setData(row, 'isr', p.isr.join(','));
  setData(row, 'osr', p.osr.join(','));
  const move = reassignmentOf(p);
  setData(row, 'moving', move ? move.target.join(',') : '');
  setData(row, 'adding', move ? move.adding.join(',') : '');
  setData(row, 'removing', move ? move.removing.join(',') : '');
  setData(row, 'hw', o ? o.high_watermark : '');
  setData(row, 'leo', o ? o.log_end_offset : '');
  setClassName(row, 'health-' + health + (inDemo ? ' demo-highlight' : ''));
  setData(row, 'demo', inDemo ? '1' : '');

  const [pid, state, leader, epoch, isr, osr, bars, hw, leo, size, moveCell] = row.cells;
  setData(moveCell.firstChild, 'topic', p.topic);
  setData(moveCell.firstChild, 'partitionId', p.partition);
  setText(pid, p.partition);
  setAttr(pid, 'title', (o && o.status_line ? o.status_line : `${p.key}: ${p.state}`)
    + (inDemo ? ' · ' + t('demo.row') : ''));

  const [stateBadge, , minIsrBadge, , truncatedBadge, , movingBadge] = state.childNodes;
  const [text, kind, title] = HEALTH_BADGE[health]();
  setText(stateBadge, text);
  setClassName(stateBadge, 'badge ' + kind);
  setAttr(stateBadge, 'title', move && health === 'ok' ? t('partitions.health.okMovingTitle') : title);
  setHidden(minIsrBadge, !isBelowMinIsr(p, topic));
  setHidden(truncatedBadge, !truncation);
  setData(row, 'truncated', truncation ? truncation.broker_id : '');
  if (truncation) {
    setAttr(truncatedBadge, 'title', `${eventText(truncation)}. ${eventReason(truncation) ?? ''}`.trim());
  }

  setHidden(movingBadge, !move);
  if (move) {
    setText(movingBadge, t('partitions.moving', idList(move.target)));
    setAttr(movingBadge, 'title', `${t('partitions.movingTitle', idList(move.target), idList(move.adding),
      idList(move.removing))} ${definition('reassignment')}`.trim());
  }

  setText(leader, p.leader < 0 ? t('partitions.noLeader') : '★ ' + p.leader);
  setText(epoch, p.leader_epoch);
  setText(isr, idList(p.isr));
  setText(osr, idList(p.osr));
  // The adding replicas of a move are out of sync by design until they catch up: not a warning by themselves.
  setClass(osr, 'warn-text', p.osr.some(id => !move || !move.adding.includes(id)));
  updateReplicas(bars.firstChild, p, lagTimeMaxMs);
  setText(hw, o ? o.high_watermark : '—');
  setText(leo, o ? o.log_end_offset : '—');
  setText(size, o ? formatBytes(o.size_bytes) : '—');
  setAttr(size, 'title', o ? t('partitions.sizeTitle', o.segments, o.log_start_offset) : t('partitions.unknown'));
}
