// "Over time", #history-charts: each user topic's records per second in and out, and each consumer group's lag,
// across the history the serving broker keeps (GET /dashboard/history/series, refreshed every 2 s). A click on a
// chart rewinds the page to that moment; while rewound, a line marks the moment shown.
import { el, svg, setAttr, setText } from './dom.js';
import { formatRate, formatTime } from './format.js';
import { chartPath, niceMax } from './rewind-model.js';
import { t } from './i18n.js';

const WIDTH = 220;
const HEIGHT = 56;
const PAD = 3;
const REFRESH_MS = 2_000;

/**
 * @param {object} els container, empty (shown while there is nothing to chart), range (a select: seconds back, or
 *     "all")
 * @param {object} api actions.js's API (historySeries(fromMs))
 * @param {object} rewind rewind.js's controller (goTo(ms), at(), mode())
 */
export function createHistoryCharts(els, api, rewind, nowMs) {
  const cards = new Map(); // "topic:name" | "group:id" -> {root, parts}
  let columns = null;
  let busy = false;

  async function refresh() {
    if (busy) return;
    busy = true;
    try {
      const back = els.range.value === 'all' ? null : Number(els.range.value) * 1000;
      columns = await api.historySeries(back === null ? undefined : Math.max(0, nowMs() - back));
      draw();
    } catch (e) {
      setText(els.empty, t('history.failed', e.message));
      els.empty.hidden = false;
    } finally {
      busy = false;
    }
  }

  function draw() {
    if (!columns) return;
    const times = columns.times || [];
    const from = times.length ? times[0] : 0;
    const to = times.length ? Math.max(times[times.length - 1], from + 1) : 1;
    const wanted = [
      ...Object.keys(columns.records_in_per_sec || {}).map(name => ({
        key: `topic:${name}`, title: name, unit: t('history.recordsPerSecond'),
        series: [['in', columns.records_in_per_sec[name]], ['out', columns.records_out_per_sec[name]]],
      })),
      ...Object.keys(columns.group_lag || {}).map(id => ({
        key: `group:${id}`, title: t('history.group', id), unit: t('history.lag'),
        series: [['lag', columns.group_lag[id]]],
      })),
    ];
    const keys = new Set(wanted.map(w => w.key));
    for (const [key, card] of cards) if (!keys.has(key)) { card.root.remove(); cards.delete(key); }
    for (const w of wanted) {
      if (!cards.has(w.key)) cards.set(w.key, buildCard(w, from, to));
      updateCard(cards.get(w.key), w, times, from, to);
    }
    els.container.replaceChildren(...wanted.map(w => cards.get(w.key).root));
    els.empty.hidden = wanted.length > 0;
    if (wanted.length === 0) setText(els.empty, t('history.empty'));
  }

  function buildCard(w) {
    const parts = {
      caption: el('span', { class: 'rates' }),
      marker: svg('line', { class: 'moment', y1: 0, y2: HEIGHT, x1: -10, x2: -10 }),
      lines: new Map(w.series.map(([name]) => [name, svg('path', { class: name, fill: 'none' })])),
    };
    parts.chart = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: WIDTH, height: HEIGHT, role: 'img',
      preserveAspectRatio: 'none' });
    parts.chart.append(svg('line', { x1: 0, y1: HEIGHT - PAD, x2: WIDTH, y2: HEIGHT - PAD, class: 'axis' }),
      ...parts.lines.values(), parts.marker);
    parts.chart.addEventListener('click', event => {
      const box = parts.chart.getBoundingClientRect();
      const { from, to } = parts.span;
      rewind.goTo(from + ((event.clientX - box.left) / box.width) * (to - from));
    });
    const root = el('figure', { class: 'spark over-time', data: { chart: w.key } },
      el('figcaption', {}, el('span', { class: 'name' }, w.title), parts.caption), parts.chart);
    return { root, parts };
  }

  function updateCard({ parts }, w, times, from, to) {
    parts.span = { from, to };
    const max = niceMax(w.series.flatMap(([, values]) => values || []));
    for (const [name, values] of w.series) {
      setAttr(parts.lines.get(name), 'd', chartPath(times, values || [], from, to, max, WIDTH, HEIGHT, PAD));
    }
    setText(parts.caption, t('history.caption', w.unit, formatRate(max), times.length ? formatTime(from) : ''));
    setAttr(parts.chart, 'aria-label', t('history.label', w.title, w.unit, formatRate(max)));
    const at = rewind.mode() === 'rewound' ? rewind.at() : null;
    const x = at === null ? -10 : ((at - from) / (to - from)) * WIDTH;
    setAttr(parts.marker, 'x1', x.toFixed(1));
    setAttr(parts.marker, 'x2', x.toFixed(1));
  }

  els.range.addEventListener('change', refresh);
  setInterval(() => { if (!document.hidden) refresh(); }, REFRESH_MS);
  setInterval(draw, 250); // the rewound moment's marker follows a replay
  refresh();
  return { refresh };
}
