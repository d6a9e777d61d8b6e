// The Kafka clients connected to each broker, computed from the state (brokers carry their connections).
//
// PURE: no DOM, so node and the test page can import it.
import { t } from './i18n.js';

/** The listener Kafka clients connect to, as brokers advertise it. */
export const KAFKA_LISTENER = 'KAFKA';
/** What the empty panel suggests when no broker advertises a Kafka listener yet. */
export const DEFAULT_BOOTSTRAP = '127.0.0.1:9092';

/** A broker's Kafka bootstrap address "host:port", or null when it advertises no Kafka listener. */
export function kafkaAddress(broker) {
  const listener = (broker.listeners || []).find(l => l.name === KAFKA_LISTENER);
  return listener ? `${listener.host}:${listener.port}` : null;
}

/**
 * The address a learner should give a Kafka client (bootstrap.servers): the serving broker's Kafka listener, else
 * the first broker's that has one, else DEFAULT_BOOTSTRAP.
 */
export function bootstrapServer(state) {
  const serving = state.header ? state.brokers.get(state.header.broker_id) : undefined;
  if (serving && kafkaAddress(serving)) return kafkaAddress(serving);
  const ids = [...state.brokers.keys()].sort((a, b) => a - b);
  for (const id of ids) {
    const address = kafkaAddress(state.brokers.get(id));
    if (address) return address;
  }
  return DEFAULT_BOOTSTRAP;
}

/**
 * One entry per broker, by id: {brokerId, address (its Kafka listener or null), count (null: unknown, the broker
 * did not answer), connections (oldest first; at most what the broker sends, `count` may be larger)}.
 */
export function clientsByBroker(state) {
  return [...state.brokers.values()]
    .sort((a, b) => a.broker_id - b.broker_id)
    .map(b => ({
      brokerId: b.broker_id,
      address: kafkaAddress(b),
      count: typeof b.client_connection_count === 'number' ? b.client_connection_count : null,
      connections: b.client_connections || [],
    }));
}

/** Open connections over every broker that said (unknown brokers count 0). */
export function totalClientConnections(state) {
  return clientsByBroker(state).reduce((sum, b) => sum + (b.count ?? 0), 0);
}

/** "apache-kafka-java 4.4.0", "librdkafka", or null when the client did not say. */
export function softwareLabel(c) {
  if (!c.software_name) return null;
  return c.software_version ? `${c.software_name} ${c.software_version}` : c.software_name;
}

/**
 * The busiest APIs first: "Produce 120 · Metadata 3 · +2 more". `max` APIs are named; ties by name. "" when none.
 */
export function requestSummary(requests, max = 3) {
  const entries = Object.entries(requests || {}).filter(([, n]) => n > 0)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  const shown = entries.slice(0, max).map(([api, n]) => `${api} ${n}`);
  if (entries.length > max) shown.push(t('clients.moreApis', entries.length - max));
  return shown.join(' · ');
}

/** A member's or connection's host without Kafka's leading "/" ("/127.0.0.1" -> "127.0.0.1"). */
export function displayHost(host) {
  return typeof host === 'string' && host.startsWith('/') ? host.slice(1) : host ?? '';
}

/**
 * How a group member reaches the broker: 'rest' for a REST consumer (its host is "broker-N", the broker that runs
 * it), 'kafka' for a client that joined over the Kafka protocol (its host is its address).
 */
export function memberVia(member) {
  return /^broker-\d+$/.test(member.host || '') ? 'rest' : 'kafka';
}

/** The IP of an "ip:port" or "[v6]:port" client address. */
function addressHost(address) {
  if (typeof address !== 'string') return '';
  const v6 = address.match(/^\[(.*)\]:\d+$/);
  if (v6) return v6[1];
  const i = address.lastIndexOf(':');
  return i < 0 ? address : address.slice(0, i);
}

/**
 * The groups a connection's client is a member of: members with its client id whose host is its address (Kafka
 * members record the client's IP). A consumer has several connections (bootstrap, coordinator, partition leaders):
 * each of them shows its groups. Sorted ids.
 */
export function groupsOfConnection(state, connection) {
  if (!connection.client_id) return [];
  const ip = addressHost(connection.client_address);
  const ids = [];
  for (const g of state.groups.values()) {
    const member = (g.members || []).some(m => m.client_id === connection.client_id
      && memberVia(m) === 'kafka' && displayHost(m.host) === ip);
    if (member) ids.push(g.group_id);
  }
  return ids.sort();
}
