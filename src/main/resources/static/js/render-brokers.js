// The brokers panel: one card per broker, #brokers .broker[data-broker="N"]. Cards are built once and then
// updated in place (only the values that differ touch the DOM), so a typed "pause seconds" value or a focused
// button survive the updates that arrive every second. Four small bars show the broker's replicas, the partitions it
// leads, and the records and bytes per second appended to those, against the busiest broker's, so an uneven cluster
// shows at a glance (brokerBars, balance-model.js).
import { el, setText, setData, setAttr, setHidden, setClass, setClassName, badge } from './dom.js';
import { term, definition } from './glossary.js';
import { t } from './i18n.js';
import { brokerLoad, brokerTraffic, fetchPausedRemainingMs } from './state.js';
import { shortId, formatBytes, formatRate } from './format.js';
import { brokerBars } from './balance-model.js';

export const DEFAULT_PAUSE_SECONDS = 15;

export function createBrokersView(container) {
  const cards = new Map(); // broker_id -> {root, parts}

  function render(state) {
    const load = brokerLoad(state);
    const bars = brokerBars(load, brokerTraffic(state));
    const ids = [...state.brokers.keys()].sort((a, b) => a - b);
    for (const [id, card] of cards) {
      if (!state.brokers.has(id)) { card.root.remove(); cards.delete(id); }
    }
    let orderChanged = false;
    for (const id of ids) {
      if (!cards.has(id)) { cards.set(id, buildCard(id)); orderChanged = true; }
      updateCard(cards.get(id), state.brokers.get(id), state.header, load.get(id), bars.get(id));
    }
    if (orderChanged) container.replaceChildren(...ids.map(id => cards.get(id).root));
  }

  return { render };
}

function buildCard(id) {
  const parts = {
    state: badge('', 'ok'),
    notAnswering: badge(t('brokers.notAnswering'), 'bad', t('brokers.notAnsweringTitle')),
    controller: el('span', { class: 'badge controller', title: definition('controller') }),
    serving: badge(t('brokers.serving'), 'serving', t('brokers.servingTitle')),
    address: el('span', { class: 'address' }),
    epoch: el('b'),
    incarnation: el('code'),
    leads: el('b'),
    follows: el('b'),
    replicasBar: loadBar('replicas', t('brokers.bar.replicas')),
    leadersBar: loadBar('leaders', t('brokers.bar.leaders')),
    recordsInBar: loadBar('records-in', t('brokers.bar.recordsIn')),
    bytesInBar: loadBar('bytes-in', t('brokers.bar.bytesIn')),
    paused: el('p', { class: 'paused', hidden: true }),
    faults: el('div', { class: 'faults', hidden: true }),
    network: el('div', { class: 'faults network', hidden: true }),
  };
  parts.secondsInput = el('input', {
    type: 'number', name: 'seconds', min: 1, max: 3600, value: DEFAULT_PAUSE_SECONDS,
    attrs: { 'aria-label': t('brokers.pauseSeconds', id) },
  });
  parts.start = faultButton('start', id, t('brokers.start'), t('brokers.startTitle'));
  parts.faults.append(
    faultButton('crash', id, t('brokers.crash'), t('brokers.crashTitle')),
    faultButton('shutdown', id, t('brokers.shutdown'), t('brokers.shutdownTitle')),
    el('span', { class: 'pause-group' },
      faultButton('pause-fetching', id, t('brokers.pause'), t('brokers.pauseTitle')),
      parts.secondsInput, t('brokers.secondsUnit')),
    parts.start,
    // Asks first (forms.js): the first click arms it and says what will happen.
    faultButton('decommission', id, t('brokers.decommission'), t('brokers.decommissionTitle')));
  // On a cluster of separate hosts (./tributary start --hosts): cut this broker's links, and heal them all.
  parts.isolateFrom = el('select', { name: 'from', attrs: { 'aria-label': t('brokers.isolateFromLabel', id) } },
    el('option', { value: 'everyone' }, t('brokers.isolateFrom.everyone')),
    el('option', { value: 'brokers' }, t('brokers.isolateFrom.brokers')),
    el('option', { value: 'controller' }, t('brokers.isolateFrom.controller')));
  parts.network.append(
    faultButton('isolate', id, t('brokers.isolate'), t('brokers.isolateTitle')),
    parts.isolateFrom,
    faultButton('heal', id, t('brokers.heal'), t('brokers.healTitle')));

  const root = el('article', { class: 'broker', data: { broker: id }, attrs: { 'aria-label': t('brokers.label', id) } },
    el('div', { class: 'broker-head' },
      el('h3', {}, term('broker', t('brokers.broker')), ' ' + id),
      parts.state, parts.notAnswering, parts.controller, parts.serving),
    el('p', { class: 'address' }, parts.address),
    el('p', { class: 'facts' },
      term('broker_epoch'), ' ', parts.epoch, ' · ', term('incarnation'), ' ', parts.incarnation),
    el('p', { class: 'facts' },
      term('leader', t('brokers.leads')), ' ', parts.leads, t('brokers.follows'), parts.follows,
      t('brokers.partitions')),
    el('div', { class: 'load-bars' }, parts.replicasBar.root, parts.leadersBar.root, parts.recordsInBar.root,
      parts.bytesInBar.root),
    parts.paused,
    parts.faults,
    parts.network);
  return { root, parts };
}

function loadBar(kind, label) {
  const fill = el('span', { class: 'load-fill' });
  const count = el('b', { class: 'load-count' });
  const root = el('div', { class: 'load-bar', data: { bar: kind, count: 0 } },
    el('span', { class: 'load-label' }, label), el('span', { class: 'load-track' }, fill), count);
  return { root, fill, count };
}

/** `count` goes into data-count as it is (tests read it), `text` is what the card shows. */
function updateBar(bar, count, text, pct, title) {
  setData(bar.root, 'count', count);
  setText(bar.count, text);
  if (bar.fill.style.width !== pct + '%') bar.fill.style.width = pct + '%';
  setAttr(bar.root, 'title', title);
}

function faultButton(action, id, label, title) {
  return el('button', { type: 'button', title, data: { action, broker: id } }, label);
}

function updateCard({ root, parts }, b, header, load, bars) {
  const fenced = b.state === 'fenced';
  const reachable = b.reachable === true ? 'true' : b.reachable === false ? 'false' : 'unknown';
  const serving = header.broker_id === b.broker_id;
  setData(root, 'state', b.state);
  setData(root, 'reachable', reachable);
  setData(root, 'controller', !!b.controller);
  setData(root, 'serving', serving);

  setText(parts.state, fenced ? t('brokers.fenced') : t('brokers.alive'));
  setClassName(parts.state, 'badge ' + (fenced ? 'bad' : 'ok'));
  parts.state.title = fenced ? definition('fenced') : t('brokers.aliveTitle');
  setHidden(parts.notAnswering, b.reachable !== false);
  setHidden(parts.controller, !b.controller);
  setText(parts.controller, t('brokers.controller', header.controller_epoch));
  setHidden(parts.serving, !serving);

  setText(parts.address, `${b.host}:${b.port}`);
  setText(parts.epoch, b.broker_epoch);
  setText(parts.incarnation, shortId(b.incarnation_id));
  parts.incarnation.title = b.incarnation_id || '';
  setText(parts.leads, load ? load.leads : 0);
  setText(parts.follows, load ? load.follows : 0);
  const bar = bars || { replicas: 0, leaders: 0, maxReplicas: 0, maxLeaders: 0, replicasPct: 0, leadersPct: 0,
    recordsIn: 0, bytesIn: 0, maxRecordsIn: 0, maxBytesIn: 0, recordsInPct: 0, bytesInPct: 0 };
  updateBar(parts.replicasBar, bar.replicas, bar.replicas, bar.replicasPct,
    t('brokers.bar.replicasTitle', bar.replicas, bar.maxReplicas));
  updateBar(parts.leadersBar, bar.leaders, bar.leaders, bar.leadersPct,
    t('brokers.bar.leadersTitle', bar.leaders, bar.maxLeaders));
  // The label says "/s", so the count stays short enough for the card: "120", "1.2 MiB".
  updateBar(parts.recordsInBar, bar.recordsIn, formatRate(bar.recordsIn), bar.recordsInPct,
    t('brokers.bar.recordsInTitle', formatRate(bar.recordsIn), formatRate(bar.maxRecordsIn)));
  const bytes = n => formatBytes(Math.round(n));
  updateBar(parts.bytesInBar, bar.bytesIn, bytes(bar.bytesIn), bar.bytesInPct,
    t('brokers.bar.bytesInTitle', bytes(bar.bytesIn), bytes(bar.maxBytesIn)));

  const pausedMs = fetchPausedRemainingMs(b, header.server_time_ms);
  setHidden(parts.paused, pausedMs === 0);
  setText(parts.paused, t('brokers.paused', Math.ceil(pausedMs / 1000)));
  setData(root, 'fetchPaused', pausedMs > 0);

  setHidden(parts.faults, !header.fault_actions);
  setHidden(parts.network, !header.network_faults);
  // Start matters for a broker that is down, so it stands out then. It stays clickable otherwise: a broker that
  // just stopped can look alive until its session expires, and the server explains if it is still running.
  setClass(parts.start, 'primary', fenced || b.reachable === false);
  setClass(root, 'down', fenced || b.reachable === false);
}
