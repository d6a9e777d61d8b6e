// Plain-English definitions of the words the dashboard uses. One source for the #glossary list and for every
// hover: elements with data-term="isr" get the definition as their title (see applyTerms).
import { el } from './dom.js';

export const GLOSSARY = {
  record: ['message (record)', 'One entry in a log: an optional key, a value and a timestamp. Producers append '
    + 'records to a partition; consumers read them back in order.'],
  topic: ['topic', 'A named stream of records, such as "orders". It is split into partitions.'],
  partition: ['partition', 'One ordered, append-only log of a topic. Order holds only within a partition; records '
    + 'with the same key go to the same partition.'],
  offset: ['offset', 'A record\'s position in its partition: 0, 1, 2, … Consumers remember the next offset to read.'],
  broker: ['broker', 'One server of the cluster. It stores replicas of partitions and answers producers and '
    + 'consumers.'],
  controller: ['controller', 'The broker that currently decides the cluster\'s metadata: which brokers are alive, '
    + 'who leads each partition, who is in sync. Elected through Raft; its term (controller epoch) grows at every '
    + 'election.'],
  leader: ['leader / follower', 'Each partition has one leader replica that takes every write and read. The other '
    + 'replicas are followers: they keep fetching new records from the leader.'],
  ar: ['AR (assigned replicas)', 'The brokers that should each hold a copy of the partition. Their number is the '
    + 'replication factor. AR = ISR + OSR.'],
  isr: ['ISR (in-sync replicas)', 'The replicas that are caught up with the leader, the leader included. Only they '
    + 'may become leader without losing committed records.'],
  osr: ['OSR (out-of-sync replicas)', 'Assigned replicas that fell behind the leader for longer than '
    + 'replica.lag.time.max.ms, or stopped fetching. They catch up and rejoin the ISR.'],
  leo: ['LEO (log end offset)', 'The offset the next record appended to a replica will get: one past its last '
    + 'record. A follower\'s LEO below the leader\'s means it lags.'],
  hw: ['HW (high watermark)', 'The offset below which every in-sync replica has the records. Records below the HW '
    + 'are committed: consumers may read them and they survive the loss of the leader.'],
  lag_time: ['replica.lag.time.max.ms', 'A follower that has not caught up to the leader\'s log end offset for '
    + 'this long leaves the ISR: the leader removes it (and takes it back once it has caught up). Beside each follower '
    + 'that is behind, the page counts the time against this limit, e.g. "3.2 s of 5 s".'],
  acks: ['acks (0 / 1 / all)', 'What a producer waits for. 0: nothing. 1: the leader wrote the record. all: every '
    + 'in-sync replica has it (the HW passed it); refused while the ISR is smaller than min.insync.replicas.'],
  min_isr: ['min.insync.replicas', 'The fewest in-sync replicas an acks=all write needs. Replication factor 3 with '
    + 'min.insync.replicas 2 keeps accepting writes with one broker down.'],
  leader_epoch: ['leader epoch', 'A counter that grows each time a partition gets a new leader. Followers use it to '
    + 'find and cut off records an old leader wrote but never committed.'],
  truncation: ['truncation', 'A follower cutting the end of its log that its new leader never had, so that both '
    + 'logs agree. Those records were above the HW, never committed: no acks=all producer was told they were '
    + 'written, but an acks=1 or acks=0 producer may have been, and for it they are lost.'],
  fenced: ['fenced', 'A broker whose heartbeats stopped for longer than its session timeout. The controller moves '
    + 'its leaderships away and it leads nothing until it registers again.'],
  broker_epoch: ['broker epoch', 'A number the controller hands a broker each time it registers, so requests from '
    + 'an older run of the same broker can be told apart and refused.'],
  incarnation: ['incarnation', 'A random id each broker process picks when it starts: a new one means a restart.'],
  under_replicated: ['under-replicated', 'Some assigned replica is out of sync (ISR smaller than AR). The partition '
    + 'still works, with less safety margin.'],
  offline: ['offline', 'No leader: no in-sync replica is alive. Neither writes nor reads work until one returns.'],
  unreachable: ['unreachable', 'The leader did not answer the broker serving this page in time, so its offsets are '
    + 'unknown right now.'],
  consumer_group: ['consumer group', 'Consumers that share the work of reading topics under one group id: each '
    + 'partition is read by exactly one member at a time, and the group remembers how far it got (its committed '
    + 'offsets) so a restarted or new member continues there.'],
  generation: ['generation', 'A numbered version of a group\'s membership and assignment. Every completed '
    + 'rebalance starts the next generation; requests from an older generation are refused, so two members never '
    + 'both think they own a partition.'],
  rebalance: ['rebalance', 'The group stops, every member rejoins, and the leader member hands out the partitions '
    + 'again (with the assignor, e.g. range). It starts when a member joins, leaves, times out or changes what it '
    + 'subscribes to. States: PreparingRebalance (waiting for joins), CompletingRebalance (waiting for the '
    + 'assignment), then Stable; Empty when no member is left.'],
  coordinator: ['group coordinator', 'The broker that runs a group: it handles joins, heartbeats and offset '
    + 'commits. It is the leader of the group\'s partition of the internal topic __consumer_offsets, where the '
    + 'group\'s state and offsets are stored; when that leader moves, the new leader loads the group.'],
  consumer_lag: ['lag (consumer lag)', 'Records a group has not processed yet in a partition: the high watermark '
    + 'minus its committed offset (minus the log start offset when it has committed nothing). Growing lag: the '
    + 'consumers fall behind the producers.'],
  committed_offset: ['committed offset', 'The offset a group stored as "read up to here" for a partition: the next '
    + 'record it will read after a restart or a rebalance.'],
  internal_topic: ['internal topic', 'A topic the cluster uses for itself; its name starts with "__". '
    + '__consumer_offsets holds the consumer groups and their committed offsets.'],
  bootstrap_server: ['bootstrap server', 'The first broker address a Kafka client is given (bootstrap.servers, '
    + 'kcat -b). The client asks it for the cluster\'s metadata, learns every broker and which one leads each '
    + 'partition, then connects to those brokers directly: one client usually has connections to several brokers.'],
  client_id: ['client id', 'The name a Kafka client gives itself (client.id) and sends with every request. It '
    + 'tells programs apart in logs, quotas and this page, and names a consumer in its group. The Java client picks '
    + 'producer-1, consumer-<group>-1, … when none is set.'],
  principal: ['principal', 'Who a connection authenticated as, such as User:alice; access rules name principals. '
    + 'Without authentication every client is User:ANONYMOUS.'],
  below_min_isr: ['below min.insync.replicas', 'Fewer in-sync replicas than the topic\'s min.insync.replicas: '
    + 'acks=all writes are refused until a follower catches up.'],
  member_id: ['member id', 'The id a group coordinator gives each member when it first joins: its client id, a '
    + 'dash and a random UUID. This page shows a member as its client id and the last characters of that id, '
    + 'like consumer-1 (…a3f2); hover for the whole id.'],
};

/** The hover text for a term: "ISR (in-sync replicas): The replicas …". */
export function definition(key) {
  const entry = GLOSSARY[key];
  return entry ? `${entry[0]}: ${entry[1]}` : '';
}

/** An <abbr> that shows `label` and carries the definition as its hover. */
export function term(key, label) {
  return el('abbr', { title: definition(key), data: { term: key } }, label ?? GLOSSARY[key][0]);
}

/** Gives every [data-term] element under root the definition as its title (for the static HTML). */
export function applyTerms(root) {
  for (const node of root.querySelectorAll('[data-term]')) {
    const text = definition(node.dataset.term);
    if (text && !node.title) node.title = text;
  }
}

/** Fills the #glossary <dl>. */
export function renderGlossary(dl) {
  const items = Object.entries(GLOSSARY).map(([key, [name, text]]) => el('div', { id: 'term-' + key },
    el('dt', {}, name),
    el('dd', {}, text)));
  dl.replaceChildren(...items);
}
