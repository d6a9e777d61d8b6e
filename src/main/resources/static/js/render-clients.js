// The Kafka clients panel, #clients: one section per broker (section.client-broker[data-broker="N"]) with how many
// Kafka client connections it has open and a table of them (tr[data-connection="id"]: client id and software,
// address and principal, connected since, requests by API, the groups the client is a member of).
//
// A section is redrawn when its broker's row changes (a connection opened, closed or sent a request) or when a group
// changes (membership shows in the table); its table is rebuilt whole, as a group card's is.
import { el, setText, setData, setHidden } from './dom.js';
import { term, definition } from './glossary.js';
import { t, tn } from './i18n.js';
import { formatTime } from './format.js';
import { bootstrapServer, clientsByBroker, groupsOfConnection, requestSummary, softwareLabel,
  totalClientConnections } from './clients.js';

/**
 * @param container  #clients
 * @param emptyNote  shown while no broker has a client connection
 * @param example    the <code> in the empty note: a command that connects to this cluster
 */
export function createClientsView(container, emptyNote, example) {
  const sections = new Map(); // broker_id -> section

  function render(state, changes) {
    if (!changes.full && changes.brokers.size === 0 && changes.groups.size === 0) return;
    const brokers = clientsByBroker(state);
    for (const [id, section] of sections) {
      if (!state.brokers.has(id)) { section.root.remove(); sections.delete(id); }
    }
    let added = false;
    for (const b of brokers) {
      if (!sections.has(b.brokerId)) { sections.set(b.brokerId, buildSection(b.brokerId)); added = true; }
      updateSection(sections.get(b.brokerId), b, state);
    }
    if (added) container.replaceChildren(...brokers.map(b => sections.get(b.brokerId).root));
    setText(example, `kcat -b ${bootstrapServer(state)} -L`);
    setHidden(emptyNote, totalClientConnections(state) > 0);
  }
  return { render };
}

function buildSection(brokerId) {
  const th = (...children) => el('th', { attrs: { scope: 'col' } }, ...children);
  const parts = {
    count: el('span', { data: { field: 'count' } }),
    address: el('span', { class: 'muted small', data: { field: 'address' } }),
    rows: el('tbody'),
    more: el('p', { class: 'muted small', hidden: true }),
  };
  parts.table = el('div', { class: 'table-wrap' }, el('table', { class: 'clients' },
    el('thead', {}, el('tr', {}, th(term('client_id', 'client id'), t('clients.col.software')),
      th(t('clients.col.address'), term('principal', t('clients.col.principal'))), th(t('clients.col.since')),
      th(t('clients.col.requests')), th(term('consumer_group', t('clients.col.groups'))))),
    parts.rows));
  const root = el('section', { class: 'client-broker', data: { broker: brokerId } },
    el('div', { class: 'client-broker-head' },
      el('h3', {}, term('broker', t('clients.broker')), ' ' + brokerId), parts.count, parts.address),
    parts.table,
    parts.more);
  return { root, parts };
}

function updateSection({ root, parts }, b, state) {
  setData(root, 'count', b.count ?? 'unknown');
  if (b.count === null) setText(parts.count, t('clients.countUnknown'));
  else if (b.count === 0) setText(parts.count, t('clients.none'));
  else setText(parts.count, tn(b.count, 'clients.connections'));
  setText(parts.address, b.address ? t('clients.bootstrap', b.address) : t('clients.noListener'));
  parts.address.title = definition('bootstrap_server');

  parts.rows.replaceChildren(...b.connections.map(c => connectionRow(c, state)));
  setHidden(parts.table, b.connections.length === 0);
  const unlisted = (b.count ?? 0) - b.connections.length;
  setHidden(parts.more, unlisted <= 0);
  setText(parts.more, t('clients.more', unlisted));
}

function connectionRow(c, state) {
  const software = softwareLabel(c);
  const groups = groupsOfConnection(state, c);
  const total = c.request_count ?? 0;
  const allApis = requestSummary(c.requests, Infinity);
  return el('tr', { data: { connection: c.connection_id, clientId: c.client_id ?? '', software: software ?? '',
    address: c.client_address ?? '', requests: total, groups: groups.join(',') } },
  el('td', {},
    el('div', { class: 'client-id' }, c.client_id ?? el('span', { class: 'muted' }, t('clients.noRequest'))),
    el('div', { class: 'muted small', title: software ? t('clients.softwareTitle') : t('clients.softwareUnsaid') },
      software ?? t('clients.softwareUnknown'))),
  el('td', {},
    el('div', {}, c.client_address ?? '—'),
    el('div', { class: 'muted small', title: c.security_protocol ? t('clients.over', c.security_protocol) : '' },
      c.principal ?? '—')),
  el('td', { class: 'num', title: t('clients.sinceTitle') }, formatTime(c.connected_since_ms)),
  el('td', { class: 'requests', title: allApis + (c.last_request_ms > 0 ? t('clients.lastAt', formatTime(c.last_request_ms)) : '') },
    el('b', {}, total), ' ', el('span', { class: 'muted small' }, requestSummary(c.requests))),
  el('td', {}, groups.length ? groups.join(', ') : el('span', { class: 'muted' }, '—')));
}
