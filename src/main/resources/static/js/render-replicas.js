// The replica bars of one partition row: one line per assigned replica, [data-replica="N"].
//
//   ★ 1  [██████████████████|  ]  120 · leader
//     2  [██████████████████|  ]  120 · lag 0 · <1 s
//     3  [▨▨▨▨▨▨▨▨▨▨▨        |  ]   88 · lag 32 · 14 s        (out of sync: hatched, dashed outline)
//
// The bar spans the partition's log_start_offset .. the largest LEO; its fill ends at that replica's LEO and the
// vertical line is the high watermark, at the same place on every bar of the row. See replicaBars() in state.js.
import { el, setText, setData, setAttr, setClass, setHidden } from './dom.js';
import { replicaBars } from './state.js';
import { formatFetchAge } from './format.js';

/** Builds the container; updateReplicas fills it. */
export function createReplicas() {
  return el('div', { class: 'replicas', attrs: { role: 'list' } });
}

export function updateReplicas(container, p) {
  const bars = replicaBars(p);
  const ids = bars.replicas.map(r => r.brokerId).join(',');
  if (container.dataset.ids !== ids) { // the assignment changed (rare): rebuild the lines
    container.dataset.ids = ids;
    container.replaceChildren(...bars.replicas.map(r => buildLine(r.brokerId)));
  }
  bars.replicas.forEach((r, i) => updateLine(container.children[i], r, bars));
}

function buildLine(brokerId) {
  const fill = el('span', { class: 'fill' });
  const hw = el('span', { class: 'hw-mark', attrs: { 'aria-hidden': 'true' } });
  return el('div', { class: 'replica', data: { replica: brokerId }, attrs: { role: 'listitem' } },
    el('span', { class: 'rid' }),
    el('span', { class: 'track', attrs: { role: 'img' } }, fill, hw),
    el('span', { class: 'nums' }));
}

function updateLine(line, r, bars) {
  const [rid, track, nums] = line.children;
  const [fill, hw] = track.children;
  setData(line, 'inSync', r.inSync);
  setData(line, 'leo', r.known ? r.leo : '');
  setData(line, 'leader', r.isLeader);
  setData(line, 'known', r.known);
  setClass(line, 'leader', r.isLeader);
  setClass(line, 'osr', !r.inSync);
  setClass(line, 'unknown', !r.known);

  setText(rid, (r.isLeader ? '★ ' : '') + r.brokerId);
  setAttr(fill, 'style', `width:${r.widthPct.toFixed(2)}%`);
  setHidden(hw, bars.hwPct === null);
  if (bars.hwPct !== null) setAttr(hw, 'style', `left:${bars.hwPct.toFixed(2)}%`);
  setText(nums, numbers(r));
  setAttr(track, 'aria-label', describe(r));
  setAttr(line, 'title', describe(r));
}

/** The short text beside the bar. */
function numbers(r) {
  if (!r.known) return r.inSync ? 'unknown' : 'unknown · out of sync';
  if (r.isLeader) return `${r.leo} · leader`;
  const age = r.lastFetchAgeMs === null ? 'never' : r.lastFetchAgeMs < 1000 ? '<1 s' : `${r.lastFetchAgeMs / 1000 | 0} s`;
  return `${r.leo} · lag ${r.lag ?? '?'} · ${age}`;
}

/** The sentence for screen readers and the hover. */
function describe(r) {
  const role = r.isLeader ? 'leader' : 'follower';
  const sync = r.inSync ? 'in sync (ISR)' : 'out of sync (OSR)';
  if (!r.known) return `broker ${r.brokerId}, ${role}, ${sync}, progress unknown (the leader reported none)`;
  if (r.isLeader) return `broker ${r.brokerId}, leader, log end offset ${r.leo}`;
  const age = formatFetchAge(r.lastFetchAgeMs);
  return `broker ${r.brokerId}, follower, ${sync}, log end offset ${r.leo}, ${r.lag ?? 'unknown'} records behind `
    + `the leader, ${age}`;
}
