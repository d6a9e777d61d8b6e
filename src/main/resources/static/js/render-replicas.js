// The replica bars of one partition row: one line per assigned replica, [data-replica="N"].
//
//   ★ 1  [██████████████████|  ]  120 · leader
//     2  [██████████████████|  ]  120 · lag 0 · <1 s
//     3  [███████████        |  ]   88 · lag 32 · 3 s   [███▒] 3.2 s of 5 s     (behind: the lag timer)
//     4  [▨▨▨▨▨▨             |  ]   50 · lag 70 · 14 s  out of ISR · 14 s      (out of sync: hatched, dashed)
//
// While the partition is being moved (a reassignment), its lines are the target's then the leaving replicas':
//
//    +4  [▨▨▨▨▨▨             |  ]   50 of 120 · catching up                  (adding: copies outside the ISR)
//    −1  [██████████████████|  ]  120 · lag 0 · <1 s · leaving              (removing: struck through)
//
// An adding replica has never been in the ISR, so it shows no "out of ISR" timer: its LEO against the leader's is
// its progress. Once it joins the ISR it reads like any follower, tagged "joined ISR" until the move completes.
//
// The bar spans the partition's log_start_offset .. the largest LEO; its fill ends at that replica's LEO and the
// vertical line is the high watermark, at the same place on every bar of the row. See replicaBars() in state.js.
// The lag timer (lag-time.js) shows how long a follower has not been caught up against its leader's
// replica.lag.time.max.ms; while it counts, a 100 ms ticker here redraws it between server updates.
import { el, setText, setData, setAttr, setClass, setHidden } from './dom.js';
import { replicaBars } from './state.js';
import { formatFetchAge, formatDuration } from './format.js';
import { definition } from './glossary.js';
import { t } from './i18n.js';
import { lagStanding, lagClock, shownLagMs, against, formatLagTime, formatLimit } from './lag-time.js';

/** How often a counting timer is redrawn: tenths of a second step smoothly, and only counting lines are touched. */
const TICK_MS = 100;

/** Lines whose timer counts, each with its clock (lag-time.js lagClock) and its leader's limit. */
const counting = new Map();
let ticker = null;

/** Builds the container; updateReplicas fills it. */
export function createReplicas() {
  return el('div', { class: 'replicas', attrs: { role: 'list' } });
}

/** @param lagTimeMaxMs the leader's replica.lag.time.max.ms, null when unknown */
export function updateReplicas(container, p, lagTimeMaxMs) {
  const bars = replicaBars(p);
  const ids = bars.replicas.map(r => r.brokerId).join(',');
  if (container.dataset.ids !== ids) { // the assignment changed (rare): rebuild the lines
    container.dataset.ids = ids;
    for (const line of container.children) counting.delete(line);
    container.replaceChildren(...bars.replicas.map(r => buildLine(r.brokerId)));
  }
  bars.replicas.forEach((r, i) => updateLine(container.children[i], r, bars, lagTimeMaxMs));
  // While a timer shows, every line of the row reserves its column, so the bars keep one width and the HW line
  // stays at the same place on each.
  setClass(container, 'has-lag', [...container.children].some(line => !line.lastChild.hidden));
}

function buildLine(brokerId) {
  const fill = el('span', { class: 'fill' });
  const hw = el('span', { class: 'hw-mark', attrs: { 'aria-hidden': 'true' } });
  const lag = el('span', { class: 'lag', hidden: true },
    el('span', { class: 'lag-bar', attrs: { 'aria-hidden': 'true' } }, el('span', { class: 'lag-fill' })),
    el('span', { class: 'lag-text' }));
  return el('div', { class: 'replica', data: { replica: brokerId }, attrs: { role: 'listitem' } },
    el('span', { class: 'rid' }),
    el('span', { class: 'track', attrs: { role: 'img' } }, fill, hw),
    el('span', { class: 'nums' }),
    lag);
}

function updateLine(line, r, bars, lagTimeMaxMs) {
  const [rid, track, nums] = line.children;
  const [fill, hw] = track.children;
  setData(line, 'inSync', r.inSync);
  setData(line, 'leo', r.known ? r.leo : '');
  setData(line, 'leader', r.isLeader);
  setData(line, 'known', r.known);
  setClass(line, 'leader', r.isLeader);
  setClass(line, 'osr', !r.inSync);
  setClass(line, 'unknown', !r.known);
  setData(line, 'role', r.role ?? '');
  setClass(line, 'adding', r.role === 'adding');
  setClass(line, 'removing', r.role === 'removing');

  setText(rid, (r.isLeader ? '★ ' : '') + (ROLE_SIGN[r.role] ?? '') + r.brokerId);
  setAttr(fill, 'style', `width:${r.widthPct.toFixed(2)}%`);
  setHidden(hw, bars.hwPct === null);
  if (bars.hwPct !== null) setAttr(hw, 'style', `left:${bars.hwPct.toFixed(2)}%`);
  setText(nums, numbers(r, bars));
  const sentence = describe(r, bars);
  setAttr(track, 'aria-label', sentence);
  setAttr(line, 'title', sentence);
  updateLag(line, r, lagTimeMaxMs);
}

/** The mark before a moving partition's replica id: + joining, − leaving (U+2212, as wide as +). */
const ROLE_SIGN = { adding: '+', removing: '−' };

/** An adding replica still copying outside the ISR: its progress is its LEO against the leader's. */
function catchingUp(r) {
  return r.role === 'adding' && !r.inSync;
}

/** The short text beside the bar. */
function numbers(r, bars) {
  if (catchingUp(r)) {
    return r.known && bars.leaderLeo !== null ? t('replicas.catchingUp', r.leo, bars.leaderLeo)
      : t('replicas.catchingUpUnknown');
  }
  const text = followerNumbers(r);
  if (r.role === 'adding') return text + t('replicas.joinedTag');
  if (r.role === 'removing') return text + t('replicas.leavingTag');
  return text;
}

function followerNumbers(r) {
  if (!r.known) return r.inSync ? t('replicas.unknown') : t('replicas.unknownOutOfSync');
  if (r.isLeader) return t('replicas.leaderNums', r.leo);
  const age = r.lastFetchAgeMs === null ? t('replicas.never') : r.lastFetchAgeMs < 1000 ? t('replicas.underSecond')
    : t('replicas.seconds', r.lastFetchAgeMs / 1000 | 0);
  return t('replicas.followerNums', r.leo, r.lag ?? '?', age);
}

/** The sentence for screen readers and the hover; a moving partition's replica also says its part in the move. */
function describe(r, bars) {
  const sentence = describeReplica(r);
  if (r.role === 'removing') return t('replicas.describeWithRole', sentence, t('replicas.describeRemoving'));
  if (r.role !== 'adding') return sentence;
  if (!catchingUp(r)) return t('replicas.describeWithRole', sentence, t('replicas.describeAddingInSync'));
  const unknown = t('replicas.unknown');
  return t('replicas.describeWithRole', sentence, t('replicas.describeAdding', r.leo ?? unknown,
    bars.leaderLeo ?? unknown));
}

function describeReplica(r) {
  const role = r.isLeader ? t('replicas.leader') : t('replicas.follower');
  const sync = r.inSync ? t('replicas.inSync') : t('replicas.outOfSync');
  if (!r.known) return t('replicas.describeUnknown', r.brokerId, role, sync);
  if (r.isLeader) return t('replicas.describeLeader', r.brokerId, r.leo);
  const age = formatFetchAge(r.lastFetchAgeMs);
  return t('replicas.describeFollower', r.brokerId, sync, r.leo, r.lag ?? t('replicas.unknown'), age);
}

// ------------------------------------------------------------------------------------------------ the lag timer
// data-lag-state on the line: '' (nothing to show), caught-up, counting or out; data-out-of-sync-ms: the time shown
// (ms, counted on between updates while counting), '' when none.

function updateLag(line, r, limitMs) {
  const lag = line.lastChild;
  // An adding replica copying outside the ISR never left it: no "out of ISR" time (its numbers say how far it is).
  const standing = catchingUp(r) ? { state: 'none', ms: null } : lagStanding(r, limitMs);
  setData(line, 'lagState', standing.state === 'none' ? '' : standing.state.replace('_', '-'));
  const limit = limitMs ? formatLimit(limitMs) : t('replicas.unknown');
  if (standing.state === 'counting' && standing.ms !== null) {
    const previous = counting.get(line);
    const clock = lagClock(previous && previous.clock, standing.ms, Date.now());
    counting.set(line, { clock, limitMs });
    setAttr(lag, 'title', `${definition('lag_time')} ${t('replicas.lagCounting', r.brokerId, limit)}`);
    drawCount(line, clock, limitMs);
    startTicking();
    return;
  }
  counting.delete(line);
  setHidden(lag, standing.state === 'none' || standing.state === 'caught_up');
  setData(line, 'outOfSyncMs', standing.ms ?? '');
  setData(line, 'lagLevel', standing.level ?? '');
  const [bar, text] = lag.children;
  if (standing.state === 'counting') { // in the ISR but never caught up since this leader took over (rare)
    setHidden(bar, true);
    setText(text, t('replicas.notCaughtUp'));
    setAttr(lag, 'title', `${definition('lag_time')} ${t('replicas.lagNeverCaughtUp', r.brokerId, limit)}`);
  } else if (standing.state === 'out') {
    setHidden(bar, true);
    setText(text, standing.ms === null ? t('replicas.outOfIsr') : t('replicas.outOfIsrFor', formatDuration(standing.ms)));
    setAttr(lag, 'title', `${definition('lag_time')} `
      + (standing.ms === null ? t('replicas.leftIsrNever', r.brokerId)
        : t('replicas.leftIsrFor', r.brokerId, formatDuration(standing.ms), limit)));
  }
  setLagClass(lag, standing.level);
}

/** Draws a counting timer as its clock shows it now. */
function drawCount(line, clock, limitMs) {
  const lag = line.lastChild;
  const [bar, text] = lag.children;
  const ms = shownLagMs(clock, Date.now());
  const { fraction, level } = against(ms, limitMs);
  setHidden(lag, false);
  setHidden(bar, fraction === null);
  if (fraction !== null) setAttr(bar.firstChild, 'style', `width:${(100 * fraction).toFixed(1)}%`);
  setText(text, formatLagTime(ms, limitMs));
  setData(line, 'outOfSyncMs', Math.round(ms));
  setData(line, 'lagLevel', level);
  setLagClass(lag, level);
}

function setLagClass(lag, level) {
  const name = level ? `lag ${level}` : 'lag';
  if (lag.className !== name) lag.className = name;
}

/**
 * Redraws every counting timer each TICK_MS from its clock: the server sends a lagging follower's time a few times
 * a second at most, and late; counting on locally between its values keeps the timer moving smoothly at no cost to
 * the server. Lines that left the DOM (paging, filtering, a removed topic) are forgotten; the ticker stops when
 * nothing counts.
 */
function startTicking() {
  if (ticker !== null) return;
  ticker = setInterval(() => {
    for (const [line, { clock, limitMs }] of counting) {
      if (line.isConnected) drawCount(line, clock, limitMs);
      else counting.delete(line);
    }
    if (counting.size === 0) { clearInterval(ticker); ticker = null; }
  }, TICK_MS);
}
