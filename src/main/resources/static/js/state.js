// The dashboard's model of the cluster, and everything that can be computed from it without a DOM.
//
// PURE: no DOM, no timers, no globals at import time, so node and the test page can import it. State is never
// mutated: applyMessage returns a new state that shares every unchanged row with the old one, plus a `changes`
// record that tells the renderers what to touch (their DOM work stays proportional to what changed).
//
// Message contract (docs/dashboard-protocol.md): a snapshot first, then deltas and
// heartbeats whose `seq` increases by exactly 1. A gap, or a delta before any snapshot, means this state can no
// longer be trusted: applyMessage says needsResync and the connection fetches a fresh snapshot.

export const MAX_EVENTS = 200;
export const THROUGHPUT_WINDOW_MS = 60_000;
/** Sparkline points are taken at most this often per topic (deltas come every ~250 ms, heartbeats every 1 s). */
export const THROUGHPUT_SAMPLE_MS = 500;
/** Hard cap, so the history stays bounded even if server clocks misbehave. */
export const THROUGHPUT_MAX_POINTS = Math.ceil(THROUGHPUT_WINDOW_MS / THROUGHPUT_SAMPLE_MS) + 10;

const HEADER_FIELDS = ['cluster_id', 'broker_id', 'controller_id', 'controller_epoch', 'metadata_offset',
  'server_time_ms', 'fault_actions', 'network_faults'];

/** The state before the first snapshot: no header, nothing known. */
export function emptyState() {
  return {
    seq: 0,
    header: null,
    brokers: new Map(),      // broker_id -> BROKER
    partitions: new Map(),   // key ("topic-p") -> PARTITION
    topics: new Map(),       // name -> TOPIC
    events: [],              // oldest first, at most MAX_EVENTS
    eventKeys: new Set(),    // eventKey() of every event in `events`, for dedupe
    groups: new Map(),       // group_id -> GROUP
    groupEvents: [],         // the coordinators' group events, oldest first, at most MAX_EVENTS
    groupEventKeys: new Set(), // groupEventKey() of every entry in `groupEvents`
    throughput: new Map(),   // topic -> [{t, in, out}] oldest first, within THROUGHPUT_WINDOW_MS
    demo: null,              // the guided demo running now ({name, title, step, steps, text, topics, partitions}), or null
  };
}

// A change record says what a message changed, so renderers touch only that: `full` (a snapshot: redraw all),
// `header`, `brokers` (ids changed or removed), `partitions` (keys changed or removed), `topics` (the list was
// replaced), `events` (the newly appended ones, oldest first), `groups` (ids changed or removed), `groupEvents`
// (the newly appended group events, oldest first), `throughput` (a sparkline point was added), `demo` (the running
// demo started, moved on a step or ended).

/** The union of two change records, for renderers that draw several messages at once. */
export function mergeChanges(a, b) {
  return {
    full: a.full || b.full,
    header: a.header || b.header,
    brokers: new Set([...a.brokers, ...b.brokers]),
    partitions: new Set([...a.partitions, ...b.partitions]),
    topics: a.topics || b.topics,
    events: b.full ? b.events : a.events.concat(b.events),
    groups: new Set([...a.groups, ...b.groups]),
    groupEvents: b.full ? b.groupEvents : a.groupEvents.concat(b.groupEvents),
    throughput: a.throughput || b.throughput,
    demo: a.demo || b.demo,
  };
}

/** A change record that says "nothing changed", to start merging from. */
export function noChanges() {
  return { full: false, header: false, brokers: new Set(), partitions: new Set(), topics: false, events: [],
    groups: new Set(), groupEvents: [], throughput: false, demo: false };
}

/**
 * Applies one server message. Returns {state, needsResync, changes}; on needsResync the state is the old one,
 * unchanged (the page keeps showing it, marked stale, until a new snapshot replaces it).
 */
export function applyMessage(state, message) {
  if (!message || typeof message !== 'object') return { state, needsResync: false, changes: noChanges() };
  if (message.type === 'snapshot') return applySnapshot(state, message);
  if (message.type !== 'delta' && message.type !== 'heartbeat') {
    return { state, needsResync: false, changes: noChanges() }; // unknown types: ignore, for forward compatibility
  }
  if (state.header === null || message.seq !== state.seq + 1) {
    return { state, needsResync: true, changes: noChanges() };
  }
  return message.type === 'delta' ? applyDelta(state, message) : applyHeartbeat(state, message);
}

function applySnapshot(state, message) {
  const s = message.state || {};
  const header = pickHeader(s);
  const topics = byKey(s.topics || [], t => t.name);
  const { events, eventKeys } = appendEvents([], new Set(), s.events || [], eventKey);
  const group = appendEvents([], new Set(), s.group_events || [], groupEventKey);
  // The throughput history outlives the connection: a reconnect to another broker continues the same sparklines.
  const next = {
    seq: message.seq,
    header,
    brokers: byKey(s.brokers || [], b => b.broker_id),
    partitions: byKey(s.partitions || [], p => p.key),
    topics,
    events,
    eventKeys,
    groups: byKey(s.groups || [], g => g.group_id),
    groupEvents: group.events,
    groupEventKeys: group.eventKeys,
    throughput: sampleThroughput(state.throughput, topics, header.server_time_ms),
    demo: demoOf(s.demo),
  };
  const changes = { ...noChanges(), full: true, header: true, topics: true, events, groupEvents: group.events,
    throughput: true, demo: true };
  return { state: next, needsResync: false, changes };
}

function applyDelta(state, message) {
  const changes = noChanges();
  changes.header = true;
  const header = message.header ? pickHeader(message.header) : state.header;

  const brokers = replaceRows(state.brokers, message.brokers, message.removed_brokers, b => b.broker_id,
    changes.brokers);
  const partitions = replaceRows(state.partitions, message.partitions, message.removed_partitions, p => p.key,
    changes.partitions);

  let topics = state.topics;
  if (Array.isArray(message.topics)) { // null: unchanged
    topics = byKey(message.topics, t => t.name);
    changes.topics = true;
  }

  const groups = replaceRows(state.groups, message.groups, message.removed_groups, g => g.group_id,
    changes.groups);

  const appended = appendEvents(state.events, state.eventKeys, message.events || [], eventKey);
  changes.events = appended.added;
  const group = appendEvents(state.groupEvents, state.groupEventKeys, message.group_events || [], groupEventKey);
  changes.groupEvents = group.added;

  const throughput = sampleThroughput(state.throughput, topics, header.server_time_ms);
  changes.throughput = throughput !== state.throughput;

  // `demo` is the running demo as of now (null: none). The server sends it in the delta's header, which every delta
  // carries; a delta without the field leaves it as it was.
  let demo = state.demo;
  const demoSource = message.header && 'demo' in message.header ? message.header : message;
  if ('demo' in demoSource) {
    const incoming = demoOf(demoSource.demo);
    if (JSON.stringify(incoming) !== JSON.stringify(demo)) {
      demo = incoming;
      changes.demo = true;
    }
  }

  const next = { ...state, seq: message.seq, header, brokers, partitions, topics, events: appended.events,
    eventKeys: appended.eventKeys, groups, groupEvents: group.events, groupEventKeys: group.eventKeys, throughput,
    demo };
  return { state: next, needsResync: false, changes };
}

function applyHeartbeat(state, message) {
  const changes = noChanges();
  let header = state.header;
  if (typeof message.server_time_ms === 'number') {
    header = { ...state.header, server_time_ms: message.server_time_ms };
    changes.header = true;
  }
  const throughput = sampleThroughput(state.throughput, state.topics, header.server_time_ms);
  changes.throughput = throughput !== state.throughput;
  return { state: { ...state, seq: message.seq, header, throughput }, needsResync: false, changes };
}

/** The `demo` field as the page keeps it: null, or an object with its lists present (empty when not sent). */
function demoOf(demo) {
  if (!demo || typeof demo !== 'object' || !demo.name) return null;
  return { ...demo, topics: Array.isArray(demo.topics) ? demo.topics : [],
    partitions: Array.isArray(demo.partitions) ? demo.partitions : [] };
}

/**
 * Which rows and topic groups the running demo uses: {partitions, topics} as Sets. A listed partition marks its row
 * and its topic's group; a listed topic marks its group, and every row of it when the demo lists none of its
 * partitions. Empty sets when no demo runs.
 */
export function demoMarks(state) {
  const demo = state.demo;
  if (!demo) return { partitions: new Set(), topics: new Set(), marksRow: () => false };
  const partitions = new Set(demo.partitions);
  const topicsWithPartitions = new Set([...state.partitions.values()].filter(p => partitions.has(p.key))
    .map(p => p.topic));
  const topics = new Set([...demo.topics, ...topicsWithPartitions]);
  const wholeTopics = new Set(demo.topics.filter(t => !topicsWithPartitions.has(t)));
  return { partitions, topics, marksRow: p => partitions.has(p.key) || wholeTopics.has(p.topic) };
}

function pickHeader(source) {
  const header = {};
  for (const field of HEADER_FIELDS) header[field] = source[field] ?? null;
  return header;
}

function byKey(rows, keyOf) {
  const map = new Map();
  for (const row of rows) map.set(keyOf(row), row);
  return map;
}

/** Copy-on-write replace-by-key of full rows; records every touched key in `touched`. */
function replaceRows(old, rows, removed, keyOf, touched) {
  const hasRows = Array.isArray(rows) && rows.length > 0;
  const hasRemoved = Array.isArray(removed) && removed.length > 0;
  if (!hasRows && !hasRemoved) return old;
  const map = new Map(old);
  if (hasRows) for (const row of rows) { map.set(keyOf(row), row); touched.add(keyOf(row)); }
  if (hasRemoved) for (const key of removed) { map.delete(key); touched.add(key); }
  return map;
}

/** Events are identified by these fields together (the metadata offset alone can carry several events). */
export function eventKey(e) {
  return [e.offset, e.type, e.topic ?? '', e.partition ?? -1, e.broker_id ?? -1].join('|');
}

/**
 * Group events have no metadata offset; all their fields together identify one (the same event may come again
 * when a coordinator's answers went missing for a moment).
 */
export function groupEventKey(e) {
  return [e.timestamp_ms, e.coordinator ?? -1, e.group_id ?? '', e.generation_id ?? -1, e.type, e.text].join('|');
}

/**
 * Appends the events not seen yet (by keyOf), keeps the newest MAX_EVENTS. Returns the new arrays and what was
 * added. Group events from several coordinators may arrive out of time order; the timeline sorts them for display.
 */
function appendEvents(events, eventKeys, incoming, keyOf) {
  const added = [];
  const keys = new Set(eventKeys);
  for (const e of incoming) {
    const key = keyOf(e);
    if (keys.has(key)) continue;
    keys.add(key);
    added.push(e);
  }
  if (added.length === 0) return { events, eventKeys, added };
  let all = events.concat(added);
  if (all.length > MAX_EVENTS) {
    all = all.slice(all.length - MAX_EVENTS);
    // Forget dropped keys too, so the set stays as bounded as the list.
    keys.clear();
    for (const e of all) keys.add(keyOf(e));
  }
  // Only the newest MAX_EVENTS of a huge batch survive the trim.
  return { events: all, eventKeys: keys, added: added.slice(-MAX_EVENTS) };
}

/**
 * Adds one point per topic (its current rates at server time `nowMs`) when the last point is at least
 * THROUGHPUT_SAMPLE_MS old, drops points outside the window and histories of deleted topics. Returns the same
 * Map if nothing changed.
 */
export function sampleThroughput(history, topics, nowMs) {
  if (typeof nowMs !== 'number') return history;
  let next = null;
  const copy = () => (next ??= new Map(history));
  for (const name of history.keys()) if (!topics.has(name)) copy().delete(name);
  for (const [name, topic] of topics) {
    const points = history.get(name) || [];
    const last = points[points.length - 1];
    // Another broker's clock may be slightly behind after a failover: wait for it instead of drawing backwards,
    // unless it is far behind, then start over.
    if (last && nowMs < last.t - 5000) { copy().set(name, [point(topic, nowMs)]); continue; }
    if (last && nowMs - last.t < THROUGHPUT_SAMPLE_MS) continue;
    const kept = points.filter(p => p.t >= nowMs - THROUGHPUT_WINDOW_MS);
    kept.push(point(topic, nowMs));
    copy().set(name, kept.slice(-THROUGHPUT_MAX_POINTS));
  }
  return next ?? history;
}

function point(topic, t) {
  return { t, in: Number(topic.records_in_per_sec) || 0, out: Number(topic.records_out_per_sec) || 0 };
}

// ---------------------------------------------------------------------------------------------------------------
// Selectors

/**
 * One word for a partition's health, worst first: 'offline' (no leader), 'unreachable' (leader did not answer),
 * 'leader_not_available' (leader elected, not serving yet), 'under_replicated' (ISR smaller than the replicas),
 * 'ok'.
 */
export function partitionHealth(p) {
  if (p.state === 'offline' || p.leader < 0) return 'offline';
  if (p.state === 'unreachable') return 'unreachable';
  if (p.state === 'leader_not_available') return 'leader_not_available';
  if (isUnderReplicated(p)) return 'under_replicated';
  return 'ok';
}

/**
 * Fewer in-sync replicas than the partition should have. While it is being moved, that is its target's count
 * (Kafka's rule): the adding replicas copying outside the ISR are expected, not a lost copy, as long as the ISR still
 * holds as many replicas as the target.
 */
export function isUnderReplicated(p) {
  const move = reassignmentOf(p);
  if (move) return !!p.isr && p.isr.length < move.target.length;
  return (p.osr && p.osr.length > 0) || (p.isr && p.replicas && p.isr.length < p.replicas.length);
}

/**
 * A partition's reassignment in progress (KIP-455): {adding, removing, target}, or null when it is not being moved
 * (or the server predates the fields). `target` is the replicas it will have: `replicas` without the leaving ones.
 */
export function reassignmentOf(p) {
  const adding = Array.isArray(p.adding_replicas) ? p.adding_replicas : [];
  const removing = Array.isArray(p.removing_replicas) ? p.removing_replicas : [];
  if (adding.length === 0 && removing.length === 0) return null;
  return { adding, removing, target: (p.replicas || []).filter(id => !removing.includes(id)) };
}

/** What the "only under-replicated / offline" filter keeps. */
export function isProblem(p) {
  return partitionHealth(p) !== 'ok';
}

export function problemPartitions(state) {
  return [...state.partitions.values()].filter(isProblem);
}

/** Fewer in-sync replicas than the topic's min.insync.replicas: acks=all produce requests are refused. */
export function isBelowMinIsr(p, topic) {
  return !!topic && p.leader >= 0 && p.isr.length < topic.min_insync_replicas;
}

/** Topic name -> its partitions sorted by id, for every topic in the metadata or with partitions. Names sorted. */
export function partitionsByTopic(state) {
  const groups = new Map();
  for (const name of state.topics.keys()) groups.set(name, []);
  for (const p of state.partitions.values()) {
    if (!groups.has(p.topic)) groups.set(p.topic, []);
    groups.get(p.topic).push(p);
  }
  for (const list of groups.values()) list.sort((a, b) => a.partition - b.partition);
  return new Map([...groups].sort(([a], [b]) => compareTopicNames(a, b)));
}

/** Internal topics (Kafka's convention: the name starts with "__", like __consumer_offsets). */
export function isInternalTopic(name) {
  return typeof name === 'string' && name.startsWith('__');
}

/** Topic names by name, internal topics after the user's (so __consumer_offsets never pushes them down). */
export function compareTopicNames(a, b) {
  const ia = isInternalTopic(a);
  const ib = isInternalTopic(b);
  if (ia !== ib) return ia ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The per-topic counts shown in a topic group's header. */
export function topicSummary(partitions) {
  const summary = { partitions: partitions.length, underReplicated: 0, offline: 0, unreachable: 0 };
  for (const p of partitions) {
    const health = partitionHealth(p);
    if (health === 'offline') summary.offline++;
    else if (health === 'unreachable' || health === 'leader_not_available') summary.unreachable++;
    if (health !== 'offline' && isUnderReplicated(p)) summary.underReplicated++;
  }
  return summary;
}

/** broker_id -> {leads, follows}: how many partitions each broker leads, and is a non-leader replica of. */
export function brokerLoad(state) {
  const load = new Map();
  for (const id of state.brokers.keys()) load.set(id, { leads: 0, follows: 0 });
  for (const p of state.partitions.values()) {
    for (const id of p.replicas) {
      if (!load.has(id)) load.set(id, { leads: 0, follows: 0 }); // a replica on a broker no longer listed
      if (id === p.leader) load.get(id).leads++;
      else load.get(id).follows++;
    }
  }
  return load;
}

/**
 * broker_id -> {recordsIn, bytesIn}: the records and bytes per second appended to the partitions each broker leads,
 * over about the last second, as the server measured them (brokers[].records_in_per_sec, bytes_in_per_sec; 0 when
 * unknown).
 */
export function brokerTraffic(state) {
  const traffic = new Map();
  for (const [id, b] of state.brokers) {
    traffic.set(id, { recordsIn: Number(b.records_in_per_sec) || 0, bytesIn: Number(b.bytes_in_per_sec) || 0 });
  }
  return traffic;
}

/** The broker serving the current socket, or undefined. */
export function servingBroker(state) {
  return state.header ? state.brokers.get(state.header.broker_id) : undefined;
}

/** A broker's replica.lag.time.max.ms as it reported it (it applies to the partitions it leads), or null. */
export function lagTimeMaxMsOf(state, brokerId) {
  const broker = state.brokers.get(brokerId);
  const ms = broker ? broker.replica_lag_time_max_ms : null;
  return typeof ms === 'number' && ms > 0 ? ms : null;
}

/** How long a broker's replica fetching stays paused, in ms at the server's clock (0: not paused). */
export function fetchPausedRemainingMs(broker, serverTimeMs) {
  const until = broker.fetch_paused_until_ms || 0;
  return typeof serverTimeMs === 'number' && until > serverTimeMs ? until - serverTimeMs : 0;
}

/**
 * The geometry of a partition's replica bars. The range is log_start_offset .. the largest LEO known; each bar
 * spans log_start_offset .. that replica's LEO, and the HW marker sits at the same relative position on every bar.
 * Replicas are in assignment order (stable across leader changes). A replica is `known` only when the partition
 * is online and the leader reported a LEO for it; otherwise its bar shows "unknown". While the partition is moved,
 * each replica's `role` is 'adding' (copying the log to join it) or 'removing' (leaving once the move completes),
 * else null; `leaderLeo` is the leader's LEO, which an adding replica's is compared with (null when not online).
 */
export function replicaBars(p) {
  const o = p.state === 'online' ? p.offsets : null;
  const progress = new Map(((o && o.replicas) || []).map(r => [r.broker_id, r]));
  const knownLeos = [...progress.values()].map(r => r.log_end_offset).filter(leo => leo >= 0);
  const start = o ? o.log_start_offset : 0;
  const end = o ? Math.max(o.log_end_offset, o.high_watermark, ...knownLeos) : 0;
  const pct = offset => (end > start ? clamp((100 * (offset - start)) / (end - start), 0, 100) : 0);
  const move = reassignmentOf(p);
  const replicas = p.replicas.map(id => {
    const r = progress.get(id);
    const known = !!o && !!r && r.log_end_offset >= 0;
    return {
      brokerId: id,
      isLeader: id === p.leader,
      inSync: r ? !!r.in_sync : p.isr.includes(id),
      known,
      leo: known ? r.log_end_offset : null,
      lag: known && r.lag >= 0 ? r.lag : null,
      lastFetchAgeMs: r && r.last_fetch_age_ms >= 0 ? r.last_fetch_age_ms : null,
      // How long not caught up, by the leader's clock (lag-time.js); null when the leader did not say.
      outOfSyncMs: o && r && typeof r.out_of_sync_ms === 'number' ? r.out_of_sync_ms : null,
      widthPct: known ? pct(r.log_end_offset) : 0,
      role: !move ? null : move.adding.includes(id) ? 'adding' : move.removing.includes(id) ? 'removing' : null,
    };
  });
  return { known: !!o, start, end, hwPct: o ? pct(o.high_watermark) : null, leaderLeo: o ? o.log_end_offset : null,
    replicas };
}

function clamp(x, lo, hi) {
  return Math.min(hi, Math.max(lo, x));
}

// ---------------------------------------------------------------------------------------------------------------
// Consumer groups

/** The groups sorted by id. */
export function sortedGroups(state) {
  return [...state.groups.values()].sort((a, b) => (a.group_id < b.group_id ? -1 : a.group_id > b.group_id ? 1 : 0));
}

/**
 * What a group's header shows: member and partition counts, and the total lag (null when some partition's lag is
 * unknown, because its leader is not answering).
 */
export function groupSummary(g) {
  const partitions = g.partitions || [];
  let lag = 0;
  for (const p of partitions) {
    if (p.lag === null || p.lag === undefined) { lag = null; break; }
    lag += p.lag;
  }
  return { members: (g.members || []).length, partitions: partitions.length, lag };
}

/** How a group state reads: a badge kind, and whether the group is between generations. */
export function groupStateKind(state) {
  switch (state) {
    case 'Stable': return 'ok';
    case 'PreparingRebalance':
    case 'CompletingRebalance': return 'warn';
    case 'Dead': return 'bad';
    default: return 'muted'; // Empty, or a state this page does not know yet
  }
}

/**
 * The newest replica_truncated event of each partition in the timeline, by partition key ("topic-p"): a replica
 * dropped records its new leader never had, which only an acks=1 (or 0) producer can have been told were written.
 */
export function truncationsByPartition(events) {
  const byKey = new Map();
  for (const e of events) {
    if (e.type === 'replica_truncated' && e.topic) byKey.set(`${e.topic}-${e.partition}`, e);
  }
  return byKey;
}

// ---------------------------------------------------------------------------------------------------------------
// Failover: which broker to try next after losing the socket.

/**
 * The brokers to try, in order: alive ones that answered (reachable !== false) first, then the others; the broker
 * just lost goes last, so it is retried only after everyone else. Sorted by id within a tier so rotation is stable.
 */
export function failoverOrder(brokers, lostBrokerId) {
  const all = [...brokers.values()].sort((a, b) => a.broker_id - b.broker_id);
  const healthy = b => b.state === 'alive' && b.reachable !== false;
  const others = all.filter(b => b.broker_id !== lostBrokerId);
  const lost = all.filter(b => b.broker_id === lostBrokerId);
  return [...others.filter(healthy), ...others.filter(b => !healthy(b)), ...lost];
}

/**
 * The addresses to try, in failoverOrder. A broker's advertised host may not resolve from the browser (in Docker
 * it is "broker2", published on the page's own host), so when it differs from the page's host the same port on the
 * page's host is tried right after it.
 */
export function failoverTargets(brokers, lostBrokerId, pageHost) {
  return failoverOrder(brokers, lostBrokerId).flatMap(b => {
    const advertised = { brokerId: b.broker_id, host: b.host, port: b.port };
    return !pageHost || b.host === pageHost ? [advertised] : [advertised, { ...advertised, host: pageHost }];
  });
}

/** The target for reconnect attempt number `attempt` (0, 1, 2, ...): rotates through all, never gives up. */
export function pickTarget(brokers, lostBrokerId, attempt, pageHost) {
  const targets = failoverTargets(brokers, lostBrokerId, pageHost);
  return targets.length === 0 ? undefined : targets[attempt % targets.length];
}
