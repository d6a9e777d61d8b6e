// Small formatting helpers shared by the renderers. PURE (no DOM), so the test page can check them too.
import { t } from './i18n.js';

const pad = (n, width = 2) => String(n).padStart(width, '0');

/** Local wall-clock time with milliseconds: "14:03:07.125". */
export function formatTime(ms) {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

export function formatBytes(n) {
  if (n < 1024) return n + ' B';
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KiB';
  if (n < 1024 * 1024 * 1024) return (n / 1024 / 1024).toFixed(1) + ' MiB';
  return (n / 1024 / 1024 / 1024).toFixed(2) + ' GiB';
}

/** A last_fetch_age_ms as the contract defines it (whole seconds; 0 = within the last second; -1/null never). */
export function formatFetchAge(ms) {
  if (ms === null || ms === undefined || ms < 0) return t('fetch.never');
  if (ms < 1000) return t('fetch.underSecond');
  return t('fetch.secondsAgo', Math.floor(ms / 1000));
}

/** A duration, short, rounded down: "12 s", "4 min", "2 h 3 min". */
export function formatDuration(ms) {
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 60) return t('units.seconds', s);
  if (s < 3600) return t('units.minutes', s / 60 | 0);
  const min = (s / 60 | 0) % 60;
  return min === 0 ? t('units.hours', s / 3600 | 0) : t('units.hoursMinutes', s / 3600 | 0, min);
}

/** Records per second, short: "0", "3.5", "120". */
export function formatRate(perSec) {
  const n = Number(perSec) || 0;
  if (n === 0) return '0';
  return n < 10 ? n.toFixed(1) : String(Math.round(n));
}

/** The first 8 characters of an incarnation id, enough to tell restarts apart. */
export function shortId(hex) {
  return hex ? String(hex).slice(0, 8) : '—';
}

/** "[1,2,3]" */
export function idList(ids) {
  return '[' + (ids || []).join(',') + ']';
}

/** Decodes a base64 record key or value to text (UTF-8; invalid bytes become U+FFFD). null stays null. */
export function decodeBase64Utf8(b64) {
  if (b64 === null || b64 === undefined) return null;
  const binary = atob(b64);
  const bytes = Uint8Array.from(binary, c => c.charCodeAt(0));
  return new TextDecoder('utf-8').decode(bytes);
}
