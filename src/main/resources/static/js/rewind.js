// The rewind bar: drag back to any moment the serving broker's history keeps and the whole page shows the cluster
// as it was; play forward at 0.1×–10×; "replay the last failover" jumps to just before it; "live" returns.
//
// Past states come from GET /dashboard/state?at=<ms> on the broker serving the socket (every broker records the
// whole cluster, so this keeps working after a failover moves the page to another broker). One request is in
// flight at a time; while it is, only the newest moment asked for is remembered, so a fast drag never queues.
import { SPEEDS, advance, clampMoment, describeAgo, lastFailover, marks, pickSpeed } from './rewind-model.js';
import { formatTime } from './format.js';
import { setData, setText } from './dom.js';
import { t, has } from './i18n.js';
import { eventText } from './timeline.js';

const PLAY_TICK_MS = 100;
const EXTENT_REFRESH_MS = 5_000;

/**
 * @param {object} els the bar's elements: bar, slider, play, speed, failover, live, label, marks
 * @param {object} api actions.js's API (history(), stateAt(ms))
 * @param {object} page liveState(): the live state; show(past): draw a past state (the JSON of /dashboard/state?at)
 *     or, with null, the live one again
 */
export function createRewind(els, api, page) {
  let mode = 'live';
  let atMs = null;
  let playing = false;
  let speed = 1;
  let earliestMs = null;     // the oldest moment the serving broker keeps; null until asked
  let recording = true;
  let extentAskedMs = 0;
  let inFlight = false;
  let wanted = null;         // the newest moment asked for while a request was in flight
  let lastPlayTick = 0;
  let message = '';
  const lastScrub = { atMs: null, requestedAt: null, drawnAt: null }; // for tests and docs/benchmarks.md

  for (const s of SPEEDS) {
    const option = document.createElement('option');
    option.value = String(s);
    option.textContent = `${s}×`;
    option.selected = s === 1;
    els.speed.append(option);
  }

  const nowMs = () => {
    const h = page.liveState().header;
    return h && typeof h.server_time_ms === 'number' ? h.server_time_ms : Date.now();
  };

  async function refreshExtent(force = false) {
    if (!force && Date.now() - extentAskedMs < EXTENT_REFRESH_MS) return;
    extentAskedMs = Date.now();
    try {
      const extent = await api.history();
      recording = !!extent.recording;
      earliestMs = extent.earliest_ms >= 0 ? extent.earliest_ms : null;
      if (!recording) message = t('rewind.noHistory', extent.broker_id);
    } catch (e) {
      message = e.message;
    }
    render();
  }

  function goTo(moment) {
    if (earliestMs === null) { refreshExtent(true); return; }
    const clamped = clampMoment(moment, earliestMs, nowMs());
    if (clamped >= nowMs()) { goLive(); return; }
    mode = 'rewound';
    atMs = clamped;
    message = '';
    request(atMs);
    render();
  }

  function request(moment) {
    if (inFlight) { wanted = moment; return; }
    inFlight = true;
    const requestedAt = performance.now();
    api.stateAt(Math.round(moment))
      .then(past => {
        if (mode !== 'rewound') return;
        page.show(past);
        Object.assign(lastScrub, { atMs: moment, requestedAt, drawnAt: performance.now() });
        setData(els.bar, 'drawnAt', Math.round(moment));
      })
      .catch(e => { message = e.message; refreshExtent(true); })
      .finally(() => {
        inFlight = false;
        const next = wanted;
        wanted = null;
        if (next !== null && next !== moment && mode === 'rewound') request(next);
        render();
      });
  }

  function goLive() {
    mode = 'live';
    playing = false;
    atMs = null;
    wanted = null;
    message = '';
    page.show(null);
    render();
  }

  function setPlaying(on) {
    playing = on;
    lastPlayTick = performance.now();
    if (on && mode === 'live') goTo(earliestMs ?? nowMs());
    render();
  }

  function tick() {
    refreshExtent();
    if (playing && mode === 'rewound') {
      const t = performance.now();
      const next = advance(atMs, t - lastPlayTick, speed, nowMs());
      lastPlayTick = t;
      if (next >= nowMs()) { goLive(); return; }
      atMs = next;
      request(atMs);
    }
    render();
  }

  function replayLastFailover() {
    const found = earliestMs === null ? null : lastFailover(page.liveState().events, earliestMs);
    if (!found) {
      message = t('rewind.noFailover');
      render();
      return;
    }
    speed = 1;
    els.speed.value = '1';
    goTo(found.fromMs);
    setPlaying(true);
    message = t('rewind.replaying', eventText(found.event));
  }

  function render() {
    const now = nowMs();
    const earliest = earliestMs ?? now;
    setData(els.bar, 'mode', mode);
    setData(els.bar, 'playing', playing);
    setData(els.bar, 'at', mode === 'rewound' ? Math.round(atMs) : '');
    els.slider.disabled = !recording || earliestMs === null;
    els.slider.min = String(earliest);
    els.slider.max = String(now);
    if (document.activeElement !== els.slider || mode === 'live') {
      els.slider.value = String(mode === 'rewound' ? atMs : now);
    }
    els.play.textContent = playing ? t('rewind.pause') : t('rewind.play');
    els.live.disabled = mode === 'live';
    const where = mode === 'live'
      ? t('rewind.live', earliestMs === null ? '…' : formatTime(earliestMs))
      : t('rewind.at', formatTime(atMs), describeAgo(atMs, now)) + (playing ? t('rewind.playing', speed) : '');
    setText(els.label, message ? `${where} · ${message}` : where);
    drawMarks(now, earliest);
  }

  let marksKey = '';
  function drawMarks(now, earliest) {
    const list = marks(page.liveState().events, earliest, now);
    const key = list.map(m => `${m.t}:${m.pct.toFixed(1)}`).join(',');
    if (key === marksKey) return;
    marksKey = key;
    els.marks.replaceChildren(...list.map(m => {
      const mark = document.createElement('span');
      mark.className = 'mark';
      mark.dataset.type = m.type;
      mark.style.left = `${m.pct}%`;
      mark.title = t('rewind.mark', has(`js.events.type.${m.type}`) ? t(`events.type.${m.type}`) : m.type.replace('_', ' '),
        formatTime(m.t));
      return mark;
    }));
  }

  els.slider.addEventListener('input', () => { playing = false; goTo(Number(els.slider.value)); });
  els.play.addEventListener('click', () => setPlaying(!playing));
  els.speed.addEventListener('change', () => { speed = pickSpeed(els.speed.value); render(); });
  els.failover.addEventListener('click', replayLastFailover);
  els.live.addEventListener('click', goLive);
  setInterval(tick, PLAY_TICK_MS);
  refreshExtent(true);

  return {
    mode: () => mode,
    at: () => atMs,
    goTo,
    goLive,
    lastScrub: () => ({ ...lastScrub }),
  };
}
