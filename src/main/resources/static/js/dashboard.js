// The live dashboard: one WebSocket to any broker (they all serve the whole cluster), a pure state (state.js) fed
// by its messages, and renderers that redraw only what each message changed. When the serving broker goes quiet
// the connection moves to another broker it knows; meanwhile the last known state stays on screen, marked stale.
import { applyMessage, emptyState, mergeChanges, noChanges, pickTarget, servingBroker } from './state.js';
import { createConnection, httpUrl } from './connection.js';
import { createApi } from './actions.js';
import { createForms } from './forms.js';
import { createTrace } from './trace.js';
import { createMoveForm, createBalanceForm, createAddBrokerForm } from './balance.js';
import { createBrokersView } from './render-brokers.js';
import { createPartitionsView } from './render-partitions.js';
import { createEventsView } from './render-events.js';
import { createGroupsView } from './render-groups.js';
import { createClientsView } from './render-clients.js';
import { createThroughputView } from './render-throughput.js';
import { createRewind } from './rewind.js';
import { createHistoryCharts } from './render-history-charts.js';
import { createDemoView } from './render-demo.js';
import { t } from './i18n.js';
import { applyTerms, renderGlossary } from './glossary.js';
import { setText, setData } from './dom.js';
import { formatTime } from './format.js';

const $ = id => document.getElementById(id);

let state = emptyState();
let past = null;             // while rewound: the state drawn instead of the live one (which keeps updating)
let pending = null;          // changes not drawn yet (several messages may arrive within one frame)
let lastUpdateMs = null;     // when the state last changed, for the stale banner

const initial = { host: location.hostname, port: location.port, brokerId: null };
const connection = createConnection({
  initial,
  chooseTarget: (lost, attempt) => pickTarget(state.brokers, lost, attempt, location.hostname) ?? initial,
  onMessage,
  onStatus: renderConnection,
});
const api = createApi(() => httpUrl(connection.target()), () => (state.header ? state.header.cluster_id : ''));
const forms = createForms(api, {
  status: $('action-status'), createTopic: $('create-topic'), produce: $('produce'), load: $('load'),
  browse: $('browse'), browseResults: $('browse-results'), brokers: $('brokers'),
});
const trace = createTrace(api, $('trace'), $('trace-result'), forms.status);
const moves = createMoveForm(api, $('move-replicas'), forms.status);
createBalanceForm(api, $('balance'), $('balance-result'), forms.status);
const addBroker = createAddBrokerForm(api, $('add-broker'), forms.status);
const views = [
  createBrokersView($('brokers')),
  createPartitionsView({
    container: $('partitions'), filterInput: $('topic-filter'), problemsCheckbox: $('only-problems'),
    summary: $('partition-summary'), empty: $('empty'), noMatch: $('no-match'), onDeleteTopic: forms.deleteTopic,
    onMoveReplicas: moves.prefill,
  }),
  createGroupsView($('groups'), $('groups-empty')),
  createClientsView($('clients'), $('clients-empty'), $('clients-example')),
  createEventsView($('events'), $('events-empty')),
  createThroughputView($('throughput'), $('throughput-empty')),
  createDemoView($('demo-banner')),
  { render: renderHeader },
];
const rewind = createRewind({
  bar: $('rewind'), slider: $('rewind-slider'), play: $('rewind-play'), speed: $('rewind-speed'),
  failover: $('rewind-failover'), live: $('rewind-live'), label: $('rewind-label'), marks: $('rewind-marks'),
}, api, { liveState: () => state, show: showPast });
createHistoryCharts({ container: $('history-charts'), empty: $('history-charts-empty'), range: $('chart-range') },
  api, rewind, () => (state.header ? state.header.server_time_ms : Date.now()));

/** Returns false when the message shows a gap: the connection then fetches a fresh snapshot elsewhere. */
function onMessage(message) {
  const result = applyMessage(state, message);
  if (result.needsResync) return false;
  if (result.state !== state) lastUpdateMs = Date.now();
  state = result.state;
  if (message.type === 'snapshot') setStale(false);
  pending = pending ? mergeChanges(pending, result.changes) : result.changes;
  scheduleDraw();
  return true;
}

// Draw at most once per frame; the timeout covers frames that never come (a background tab or an occluded
// headless window), so the DOM never falls far behind the state.
let drawScheduled = false;
function scheduleDraw() {
  if (drawScheduled) return;
  drawScheduled = true;
  const once = () => { if (drawScheduled) { drawScheduled = false; draw(); } };
  requestAnimationFrame(once);
  setTimeout(once, 250);
}

function draw() {
  const changes = pending ?? noChanges();
  forms.update(state); // the forms act on the cluster as it is, also while the page shows its past
  trace.update(state);
  moves.update(state);
  addBroker.update(state);
  if (past) return;    // the live changes wait: going live again redraws everything
  pending = null;
  for (const view of views) view.render(state, changes);
}

/**
 * Draws the cluster as it was (`json`: a /dashboard/state?at= answer), or the live state again (null). Each past
 * state is applied as a snapshot on top of the previous one, so the sparklines build up while a replay plays.
 */
function showPast(json) {
  const rewound = json !== null;
  setData($('dashboard'), 'rewound', rewound);
  if (!rewound) {
    past = null;
    pending = { ...noChanges(), full: true, header: true, topics: true, events: state.events,
      groupEvents: state.groupEvents, throughput: true, demo: true };
    draw();
    return;
  }
  const before = past && past.header && past.header.server_time_ms <= json.server_time_ms ? past : emptyState();
  const result = applyMessage(before, { type: 'snapshot', seq: 0, state: json });
  past = result.state;
  for (const view of views) view.render(past, result.changes);
}

function renderHeader(s) {
  const h = s.header;
  if (!h) return;
  setText($('cluster-id'), h.cluster_id);
  setText($('controller'), h.controller_id < 0 ? t('header.noController')
    : t('header.controller', h.controller_id, h.controller_epoch));
  setText($('metadata-offset'), h.metadata_offset);
  setText($('served-by'), h.broker_id);
}

/** The #connection pill: data-state live|reconnecting, data-broker the broker serving the socket ("" if none). */
function renderConnection(status) {
  const pill = $('connection');
  const tryingId = status.target && status.target.brokerId;
  if (status.state === 'live') {
    const id = state.header ? state.header.broker_id : tryingId;
    setText(pill, t('connection.live', id));
    setData(pill, 'state', 'live');
    setData(pill, 'broker', id);
    const serving = servingBroker(state);
    pill.title = serving ? t('connection.liveFromAt', id, `${serving.host}:${serving.port}`) : t('connection.liveFrom', id);
    return;
  }
  setData(pill, 'state', 'reconnecting');
  setData(pill, 'broker', '');
  setData(pill, 'trying', tryingId ?? '');
  const trying = tryingId != null ? t('connection.trying', tryingId) : t('connection.connecting');
  if (status.state === 'connecting') setText(pill, t('connection.connecting'));
  else if (status.lostBrokerId != null) setText(pill, t('connection.lost', status.lostBrokerId, trying));
  else setText(pill, t('connection.reconnecting', trying));
  pill.title = status.reason ? t('connection.why', status.reason) : '';
  if (status.state === 'reconnecting') setStale(true);
}

/** Across a reconnect the last known state stays visible, marked stale, until the new snapshot replaces it. */
function setStale(stale) {
  const main = $('dashboard');
  setData(main, 'stale', stale && state.header !== null);
  const banner = $('stale-banner');
  banner.hidden = !(stale && state.header !== null);
  if (!banner.hidden) {
    setText(banner, t('stale.banner', lastUpdateMs ? formatTime(lastUpdateMs) : '—'));
  }
}

renderGlossary($('glossary-list'));
applyTerms(document);
connection.start();

// For tests and the curious: the current state, read-only by convention.
window.tributaryDashboard = { state: () => state, shown: () => past ?? state, connection, rewind };
