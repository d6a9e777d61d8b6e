// HTTP actions against the broker that serves the socket right now (baseUrl() follows failovers). Every call
// resolves to the parsed JSON body (or null) and rejects with an Error whose message is the server's `message`,
// ready to show to the user.
import { t } from './i18n.js';

const TIMEOUT_MS = 5000; // a frozen broker must not leave a form waiting forever

export function createApi(baseUrl, clusterId) {
  async function request(method, path, { body, contentType = 'application/json', accept } = {}) {
    const base = baseUrl();
    const headers = {};
    if (body !== undefined) headers['Content-Type'] = contentType;
    if (accept) headers.Accept = accept;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
    let response;
    try {
      // credentials: the dashboard sign-in cookie, also after a failover to another broker's origin
      response = await fetch(base + path, { method, headers, signal: controller.signal, cache: 'no-store',
        credentials: 'include',
        body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      throw new Error(e.name === 'AbortError' ? t('actions.timeout', base, TIMEOUT_MS / 1000)
        : t('actions.unreachable', base, e.message));
    } finally {
      clearTimeout(timer);
    }
    const text = await response.text();
    const json = text ? tryParse(text) : null;
    if (!response.ok) {
      // The API's own message stays English, as Kafka's do.
      throw new Error((json && json.message) || t('actions.failed', `${method} ${path}`, response.status));
    }
    return json;
  }

  const clusterPath = () => `/v3/clusters/${encodeURIComponent(clusterId())}`;
  const topicPath = name => `${clusterPath()}/topics` + (name === undefined ? '' : '/' + encodeURIComponent(name));
  const reassignmentPath = (topic, partition) =>
    `${topicPath(topic)}/partitions/${encodeURIComponent(partition)}/reassignment`;

  return {
    /** What history the broker keeps: GET /dashboard/history. */
    history: () => request('GET', '/dashboard/history'),
    /** The cluster as it was at `ms` (epoch milliseconds, the broker's clock). */
    stateAt: ms => request('GET', `/dashboard/state?at=${encodeURIComponent(ms)}`),
    /** Records/s by topic and lag by group over the history kept, from `fromMs` on (all when undefined). */
    historySeries: fromMs => request('GET', '/dashboard/history/series'
      + (fromMs === undefined ? '' : `?from=${encodeURIComponent(Math.round(fromMs))}`)),
    createTopic: ({ name, partitions, replicationFactor, minInsyncReplicas }) => request('POST', topicPath(), {
      body: { topic_name: name, partitions_count: partitions, replication_factor: replicationFactor,
        configs: [{ name: 'min.insync.replicas', value: String(minInsyncReplicas) }] },
    }),
    deleteTopic: name => request('DELETE', topicPath(name)),
    /**
     * records: [{key?, value}] → {offsets: [{partition, offset, error_code, error}]}; acks '0', '1' or 'all' (the
     * API's default): what the answer waits for (with acks=0 it comes at once and the offsets are -1).
     */
    produce: (topic, records, acks = 'all') => request('POST',
      `/topics/${encodeURIComponent(topic)}?acks=${encodeURIComponent(acks)}`, {
      body: { records }, contentType: 'application/vnd.kafka.json.v2+json',
    }),
    browse: (topic, partition, offset) => request('GET',
      `/topics/${encodeURIComponent(topic)}/partitions/${partition}/records?offset=${offset}&max_bytes=65536`,
      { accept: 'application/vnd.kafka.binary.v2+json' }),
    /** One record's life as its leader measured it: acks '0' | '1' | 'all'; see docs/api.md. */
    trace: (topic, acks, partition) => request('POST', `/dashboard/actions/topics/${encodeURIComponent(topic)}/trace`,
      { body: { acks, partition } }),
    /** Moves a partition to `replicas` (broker ids, the preferred leader first): 202 KafkaReassignment (KIP-455). */
    moveReplicas: (topic, partition, replicas) => request('POST', reassignmentPath(topic, partition),
      { body: { replicas } }),
    /** Cancels a partition's move: its replicas go back to what they were. */
    cancelMove: (topic, partition) => request('DELETE', reassignmentPath(topic, partition)),
    /** The balancer's plan for the cluster as it is now, and this broker's last run (TributaryBalance). */
    balancePlan: () => request('GET', `${clusterPath()}/balance`),
    /** Plans afresh and starts carrying it out, `maxConcurrentMoves` moves at a time: 202 (409 while one runs). */
    balance: maxConcurrentMoves => request('POST', `${clusterPath()}/balance`,
      { body: { max_concurrent_moves: maxConcurrentMoves } }),
    /** Restores every link of a cluster of separate hosts (./tributary start --hosts). */
    healNetwork: () => request('POST', '/dashboard/actions/network/heal', { body: {} }),
    /**
     * action: crash | shutdown | start | pause-fetching | isolate ({from: everyone | brokers | controller}) |
     * decommission (./tributary decommission: its replicas move off, then it stops and is unregistered)
     */
    brokerAction: (brokerId, action, body) => request('POST', `/dashboard/actions/brokers/${brokerId}/${action}`,
      { body: body ?? {} }),
    /** Starts the next broker through ./tributary add-broker, on `rack` when given: 202 (409 while one is added). */
    addBroker: rack => request('POST', '/dashboard/actions/cluster/add-broker', { body: rack ? { rack } : {} }),
  };
}

function tryParse(text) {
  try {
    return JSON.parse(text);
  } catch (e) {
    return null;
  }
}
