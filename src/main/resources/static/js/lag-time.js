// How long each follower has not been caught up to its leader, against the leader's replica.lag.time.max.ms: the
// clock that decides when a follower leaves the ISR (Kafka's rule, replication/IsrState.java), so that the moment
// it leaves is expected, not a surprise.
//
// PURE (no DOM, no timers; the time is a parameter), so the test page checks it. render-replicas.js draws it.
//
// The server sends `out_of_sync_ms` as the leader measured it when it answered (docs/dashboard-protocol.md): in
// 100 ms steps while the follower is in the ISR, whole seconds once it is out, 0 while it is caught up. A lagging
// follower's value changes with every leader answer, but those reach the page at most four times a second (the
// live view coalesces deltas to 250 ms) and late by up to a poll; so while it counts the page counts on by itself
// from the last value it got plus the time since (see lagClock), and redraws that every 100 ms: a smooth count in
// tenths of a second without asking the server for more.

import { formatDuration } from './format.js';
import { t } from './i18n.js';

/** The share of the limit from which the timer turns to the warning colour. */
export const WARN_FRACTION = 0.8;

/**
 * How far past the last value the page counts on its own. A counting follower's value changes with every
 * leader answer (a few a second), so a longer silence means the answers stopped (the page is about to be told
 * the leader is unreachable): stop rather than invent.
 */
export const MAX_COUNT_ON_MS = 2_000;

/** A new value at most this far below what the page already shows is the same count seen late: no step back. */
export const SMOOTHING_MS = 500;

/**
 * Where one replica stands against the limit, from its row (replicaBars in state.js):
 * - 'none': nothing to show (the leader itself, or its leader did not say);
 * - 'caught_up': it has everything the leader has (in the ISR, or out of it and about to rejoin);
 * - 'counting': in the ISR and not caught up for `ms`, which the page counts on (lagClock);
 * - 'out': out of the ISR and not caught up for `ms` (whole seconds; null when the leader has not seen it caught
 *   up since it took over).
 * `level` is the colour: 'ok', 'warn' (from WARN_FRACTION of the limit), 'over' (past it: the leader is about to
 * drop it, or has), 'out'.
 */
export function lagStanding(r, limitMs) {
  const ms = r.outOfSyncMs;
  if (r.isLeader || ms === null || ms === undefined) return { state: 'none', ms: null };
  if (ms === 0) return { state: 'caught_up', ms: 0 };
  if (!r.inSync) return { state: 'out', ms: ms > 0 ? ms : null, level: 'out' };
  if (ms < 0) return { state: 'counting', ms: null, level: 'warn' }; // in the ISR, never caught up: rare
  return { state: 'counting', ms, ...against(ms, limitMs) };
}

/** The bar's fill (0..1, null without a limit) and colour of `ms` not caught up against `limitMs`. */
export function against(ms, limitMs) {
  if (!(limitMs > 0)) return { fraction: null, level: 'ok' };
  const fraction = Math.min(1, ms / limitMs);
  // Kafka's rule: longer than the limit leaves (exactly the limit does not yet).
  const level = ms > limitMs ? 'over' : fraction >= WARN_FRACTION ? 'warn' : 'ok';
  return { fraction, level };
}

/**
 * The page's clock for one counting follower: the last value the server sent (`valueMs`) and the time it shows
 * from (`baseMs` at page time `atMs`). The same value again (its row changed for another reason) keeps the clock;
 * a value a little below what is already shown is the same count arriving late (the leader's answer waited for the
 * next poll and delta), so the count goes on from what is shown rather than stepping back; anything else (it
 * caught up and fell behind again in between, a jump forward) starts from the value. null when not counting.
 */
export function lagClock(previous, valueMs, nowMs) {
  if (!(valueMs > 0)) return null;
  if (previous && previous.valueMs === valueMs) return previous;
  if (previous && valueMs > previous.valueMs) {
    const shown = shownLagMs(previous, nowMs);
    if (shown >= valueMs && shown - valueMs < SMOOTHING_MS) return { valueMs, baseMs: shown, atMs: nowMs };
  }
  return { valueMs, baseMs: valueMs, atMs: nowMs };
}

/** What the clock shows at page time `nowMs`: counting on from the base, at most MAX_COUNT_ON_MS. */
export function shownLagMs(clock, nowMs) {
  return clock.baseMs + Math.min(MAX_COUNT_ON_MS, Math.max(0, nowMs - clock.atMs));
}

/** "3.2 s of 5 s" (tenths while counting; the limit as short as it goes), or "3.2 s" without a limit. */
export function formatLagTime(ms, limitMs) {
  const shown = t('units.seconds', (Math.floor(ms / 100) / 10).toFixed(1));
  return limitMs > 0 ? t('lag.of', shown, formatLimit(limitMs)) : shown;
}

/** A limit as set: "5 s", "2.5 s", "30 s", "1 min", "90 s". */
export function formatLimit(ms) {
  return ms % 60_000 === 0 ? formatDuration(ms) : t('units.seconds', ms / 1000);
}
