// The rewind scrubber's arithmetic. PURE (no DOM, no timers), so the test page can check it.
//
// The page is either LIVE (it draws what the socket says) or REWOUND to a moment `atMs` on the serving broker's
// clock (it draws GET /dashboard/state?at=atMs, the cluster as that broker recorded it). Playing moves the moment
// forward at `speed` times real time; reaching the present returns to live.
import { t } from './i18n.js';

export const SPEEDS = [0.1, 0.25, 0.5, 1, 2, 5, 10];

/** How long before a failover a replay starts: the follower falling behind and the session running out. */
export const REPLAY_LEAD_MS = 5_000;

/** The event types that mark a failover, newest wins: a broker lost its leaderships, or the controller moved. */
const FAILOVER_TYPES = new Set(['broker_fenced', 'controller_elected']);

/** The moment `elapsedMs` of real time after `atMs`, played at `speed`; never past `nowMs` (the present). */
export function advance(atMs, elapsedMs, speed, nowMs) {
  return Math.min(nowMs, atMs + Math.max(0, elapsedMs) * speed);
}

/** A moment clamped into the span kept: [earliestMs, nowMs]. */
export function clampMoment(atMs, earliestMs, nowMs) {
  return Math.max(earliestMs, Math.min(nowMs, atMs));
}

/**
 * The newest failover in the timeline and where its replay starts: {event, fromMs}, or null when there is none,
 * or it is older than the history kept (earliestMs). A broker fenced for a clean shutdown counts too: the
 * leaderships it gave up move the same way.
 */
export function lastFailover(events, earliestMs) {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (!FAILOVER_TYPES.has(e.type)) continue;
    if (typeof e.timestamp_ms !== 'number' || e.timestamp_ms < earliestMs) return null;
    return { event: e, fromMs: Math.max(earliestMs, e.timestamp_ms - REPLAY_LEAD_MS) };
  }
  return null;
}

/** "12.4 s ago", "3 min 05 s ago", "now" — how far back a moment is. */
export function describeAgo(atMs, nowMs) {
  const ms = Math.max(0, nowMs - atMs);
  if (ms < 100) return t('rewind.now');
  if (ms < 60_000) return t('rewind.secondsAgo', (ms / 1000).toFixed(1));
  const s = Math.floor(ms / 1000);
  return t('rewind.minutesAgo', Math.floor(s / 60), String(s % 60).padStart(2, '0'));
}

/** The speed closest to `wanted` among SPEEDS (a select's value arrives as text). */
export function pickSpeed(wanted) {
  const x = Number(wanted);
  if (!Number.isFinite(x) || x <= 0) return 1;
  return SPEEDS.reduce((best, s) => (Math.abs(s - x) < Math.abs(best - x) ? s : best), SPEEDS[0]);
}

/**
 * Where the scrubber's marks go: the failover-like events (fenced, controller elected, leader changed of a user
 * topic, truncation) within [earliestMs, nowMs], as {t, type, pct}, oldest first.
 */
export function marks(events, earliestMs, nowMs) {
  const span = nowMs - earliestMs;
  if (!(span > 0)) return [];
  const wanted = new Set(['broker_fenced', 'broker_unfenced', 'controller_elected', 'replica_truncated']);
  return events
    .filter(e => typeof e.timestamp_ms === 'number' && e.timestamp_ms >= earliestMs && e.timestamp_ms <= nowMs)
    .filter(e => wanted.has(e.type))
    .map(e => ({ t: e.timestamp_ms, type: e.type, pct: (100 * (e.timestamp_ms - earliestMs)) / span }));
}

/** A chart's top: the largest value, at least 1, rounded up to 1, 2 or 5 times a power of ten. */
export function niceMax(values) {
  const max = Math.max(1, ...values.filter(v => typeof v === 'number' && Number.isFinite(v)));
  const power = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map(m => m * power).find(m => m >= max);
}

/**
 * An SVG path through (times[i], values[i]) across [from, to] × [0, max] in a width × height box (pad at the
 * bottom and top); a null value (the topic or group did not exist, or its lag was unknown) breaks the line.
 */
export function chartPath(times, values, from, to, max, width, height, pad) {
  const span = to - from || 1;
  let d = '';
  let drawing = false;
  for (let i = 0; i < times.length; i++) {
    const v = values[i];
    if (typeof v !== 'number') { drawing = false; continue; }
    const x = ((times[i] - from) / span) * width;
    const y = height - pad - (v / max) * (height - 2 * pad);
    d += `${drawing ? 'L' : 'M'}${x.toFixed(1)},${y.toFixed(1)} `;
    drawing = true;
  }
  return d.trim();
}
