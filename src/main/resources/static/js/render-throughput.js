// Throughput, #throughput: per topic a hand-drawn SVG sparkline of records in / out per second over the last
// minute ([data-topic="t"]), with the current rates as text. The history is kept (bounded) by state.js.
import { el, svg, setText, setAttr } from './dom.js';
import { THROUGHPUT_WINDOW_MS, compareTopicNames } from './state.js';
import { formatRate } from './format.js';
import { t } from './i18n.js';

const WIDTH = 220;
const HEIGHT = 44;
const PAD = 3;

export function createThroughputView(container, emptyNote) {
  const cards = new Map(); // topic -> {root, parts}
  let order = '';

  function render(state, changes) {
    if (!changes.full && !changes.topics && !changes.throughput) return;
    const names = [...state.topics.keys()].sort(compareTopicNames);
    for (const [name, card] of cards) if (!state.topics.has(name)) { card.root.remove(); cards.delete(name); }
    for (const name of names) {
      if (!cards.has(name)) cards.set(name, buildCard(name));
      updateCard(cards.get(name), state.topics.get(name), state.throughput.get(name) || []);
    }
    if (names.join('\u0000') !== order) {
      order = names.join('\u0000');
      container.replaceChildren(...names.map(n => cards.get(n).root));
    }
    emptyNote.hidden = names.length > 0;
  }
  return { render };
}

function buildCard(name) {
  const parts = {
    in: el('b', { data: { rate: 'in' } }),
    out: el('b', { data: { rate: 'out' } }),
    max: el('span', { class: 'peak' }),
    inLine: svg('polyline', { class: 'in', fill: 'none' }),
    outLine: svg('polyline', { class: 'out', fill: 'none' }),
  };
  parts.chart = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: WIDTH, height: HEIGHT, role: 'img',
    preserveAspectRatio: 'none' });
  parts.chart.append(svg('line', { x1: 0, y1: HEIGHT - PAD, x2: WIDTH, y2: HEIGHT - PAD, class: 'axis' }),
    parts.inLine, parts.outLine);
  const root = el('figure', { class: 'spark', data: { topic: name } },
    el('figcaption', {}, el('span', { class: 'name' }, name),
      el('span', { class: 'rates' },
        el('span', { class: 'key in', attrs: { 'aria-hidden': 'true' } }), t('throughput.in'), parts.in, '/s  ',
        el('span', { class: 'key out', attrs: { 'aria-hidden': 'true' } }), t('throughput.out'), parts.out, '/s  ',
        parts.max)),
    parts.chart);
  return { root, parts };
}

function updateCard({ parts }, topic, points) {
  setText(parts.in, formatRate(topic.records_in_per_sec));
  setText(parts.out, formatRate(topic.records_out_per_sec));
  const max = Math.max(1, ...points.map(p => Math.max(p.in, p.out)));
  setText(parts.max, t('throughput.peak', formatRate(max)));
  const now = points.length ? points[points.length - 1].t : 0;
  setAttr(parts.inLine, 'points', polyline(points, 'in', now, max));
  setAttr(parts.outLine, 'points', polyline(points, 'out', now, max));
  setAttr(parts.chart, 'aria-label', t('throughput.label', topic.name, formatRate(topic.records_in_per_sec),
    formatRate(topic.records_out_per_sec), formatRate(max)));
}

/** Points of one series, the newest at the right edge, one minute across. */
function polyline(points, series, now, max) {
  return points.map(p => {
    const x = WIDTH - ((now - p.t) / THROUGHPUT_WINDOW_MS) * WIDTH;
    const y = HEIGHT - PAD - (p[series] / max) * (HEIGHT - 2 * PAD - 8);
    return `${x.toFixed(1)},${y.toFixed(1)}`;
  }).join(' ');
}
