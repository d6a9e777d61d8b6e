// The actions panel: create topic, produce, steady load, browse; plus the fault buttons in the broker cards and the
// delete-topic buttons (both delegated here). Results and errors go to #action-status; nothing uses a modal
// dialog, so tests can click through. The Move replicas and Balance forms (balance.js) reuse run, fields,
// createStatus and fillTopics.
import { el, setText } from './dom.js';
import { createLoad } from './load.js';
import { decodeBase64Utf8, formatTime } from './format.js';
import { DEFAULT_PAUSE_SECONDS } from './render-brokers.js';
import { compareTopicNames } from './state.js';
import { t } from './i18n.js';

/** The fault buttons' actions, by the catalogue key of their "asking to … broker N" status. */
const FAULT_ASKING = { crash: 'forms.asking.crash', shutdown: 'forms.asking.shutdown', start: 'forms.asking.start',
  'pause-fetching': 'forms.asking.pause', isolate: 'forms.asking.isolate', heal: 'forms.asking.heal',
  decommission: 'forms.asking.decommission' };

/** How long a first click on Decommission stays armed: as long as Delete topic's (render-partitions.js). */
const CONFIRM_MS = 4000;
const disarmTimers = new WeakMap(); // armed button -> the timer that disarms it

export function createForms(api, dom) {
  const status = createStatus(dom.status);

  wireCreateTopic(dom.createTopic, api, status);
  wireProduce(dom.produce, api, status);
  wireLoad(dom.load, api, status);
  wireBrowse(dom.browse, dom.browseResults, api, status);

  dom.brokers.addEventListener('click', event => {
    const button = event.target.closest('button[data-action][data-broker]');
    if (button) runFault(button, api, status);
  });

  return {
    status,
    deleteTopic: name => run(status, t('forms.deleting', name), () => api.deleteTopic(name),
      () => t('forms.deleted', name)),
    /** Keeps the topic pickers and the replication-factor cap in step with the cluster. */
    update(state) {
      const names = [...state.topics.keys()].sort(compareTopicNames);
      for (const form of [dom.produce, dom.load, dom.browse]) fillTopics(fields(form).topic, names);
      capReplication(dom.createTopic, state.brokers.size);
    },
  };
}

/** A form's named controls by name (form.elements.value etc. would clash with collection properties). */
export function fields(form) {
  return Object.fromEntries([...form.elements].filter(e => e.name).map(e => [e.name, e]));
}

/** Runs an action, reporting start, success and failure; returns the result or undefined on failure. */
export async function run(status, pending, action, describe) {
  status.show(pending, 'pending');
  try {
    const result = await action();
    status.show(describe(result), 'ok');
    return result;
  } catch (e) {
    status.show(e.message, 'error');
    return undefined;
  }
}

export function createStatus(node) {
  return {
    show(text, kind) {
      node.dataset.kind = kind;
      node.replaceChildren(el('time', {}, formatTime(Date.now())), ' ', text);
    },
  };
}

function runFault(button, api, status) {
  const id = Number(button.dataset.broker);
  const action = button.dataset.action;
  if (action === 'decommission' && !confirmed(button, id, status)) return;
  let body;
  if (action === 'pause-fetching') {
    const input = button.closest('.broker').querySelector('input[name="seconds"]');
    const seconds = Number(input && input.value) || DEFAULT_PAUSE_SECONDS;
    body = { seconds };
  }
  if (action === 'isolate') {
    const select = button.closest('.broker').querySelector('select[name="from"]');
    body = { from: (select && select.value) || 'everyone' };
  }
  const call = action === 'heal' ? () => api.healNetwork() : () => api.brokerAction(id, action, body);
  run(status, t(FAULT_ASKING[action] || 'forms.asking.other', id, action), call,
    // The server's message stays English, as the API's messages do.
    result => (result && result.message) || t('forms.accepted', action, id));
}

/**
 * Decommission asks inline, as Delete topic does (no modal dialog): the first click arms the button for CONFIRM_MS
 * and the status says what will happen; a second click within that time goes ahead. Returns whether it does.
 */
function confirmed(button, id, status) {
  const disarm = () => {
    clearTimeout(disarmTimers.get(button));
    disarmTimers.delete(button);
    delete button.dataset.confirm;
    button.textContent = t('brokers.decommission');
  };
  if (button.dataset.confirm === 'pending') {
    disarm();
    return true;
  }
  button.dataset.confirm = 'pending';
  button.textContent = t('brokers.reallyDecommission');
  status.show(t('forms.confirm.decommission', id), 'pending');
  disarmTimers.set(button, setTimeout(disarm, CONFIRM_MS));
  return false;
}

function wireCreateTopic(form, api, status) {
  form.addEventListener('submit', async event => {
    event.preventDefault();
    const f = fields(form);
    const name = f.name.value.trim();
    if (!name) { status.show(t('forms.needName'), 'error'); return; }
    const spec = { name, partitions: Number(f.partitions.value), replicationFactor: Number(f.replication_factor.value),
      minInsyncReplicas: Number(f.min_insync_replicas.value) };
    const ok = await run(status, t('forms.creating', name), () => api.createTopic(spec),
      () => t('forms.created', name, spec.partitions, spec.replicationFactor));
    if (ok !== undefined) f.name.value = '';
  });
}

/** The replication factor cannot exceed the number of brokers; min.insync.replicas cannot exceed it either. */
function capReplication(form, brokerCount) {
  if (brokerCount < 1) return;
  const rf = fields(form).replication_factor;
  const minIsr = fields(form).min_insync_replicas;
  rf.max = String(brokerCount);
  if (Number(rf.value) > brokerCount) rf.value = String(brokerCount);
  minIsr.max = rf.value;
  if (Number(minIsr.value) > Number(rf.value)) minIsr.value = rf.value;
}

/** Lists `names` in a topic picker, keeping the chosen topic; untouched when the list did not change. */
export function fillTopics(select, names) {
  const current = [...select.options].map(o => o.value).join('\u0000');
  if (current === names.join('\u0000')) return;
  const selected = select.value;
  select.replaceChildren(...names.map(name => el('option', { value: name }, name)));
  if (names.includes(selected)) select.value = selected;
}

function wireProduce(form, api, status) {
  form.addEventListener('submit', event => {
    event.preventDefault();
    const f = fields(form);
    const topic = f.topic.value;
    if (!topic) { status.show(t('forms.needTopic'), 'error'); return; }
    const count = Math.max(1, Number(f.count.value) || 1);
    const key = f.key.value;
    const text = f.value.value;
    const acks = f.acks.value;
    const records = Array.from({ length: count }, (_, i) => (key ? { key, value: { n: i, text } } : { value: { n: i, text } }));
    run(status, t('forms.producing', count, topic, acks), () => api.produce(topic, records, acks), result => {
      const offsets = (result && result.offsets) || [];
      const failed = offsets.filter(o => o.error_code || o.error);
      const partitions = [...new Set(offsets.filter(o => !o.error_code && !o.error).map(o => o.partition))].sort((a, b) => a - b);
      if (failed.length) return t('forms.produceFailed', failed.length, count, failed[0].error || failed[0].error_code);
      return t('forms.produced', count, topic, acks, partitions.join(', '));
    });
  });
}

function wireLoad(form, api, status) {
  const out = name => form.querySelector(`[data-count="${name}"]`);
  const button = form.querySelector('button[type="submit"]');
  const load = createLoad(api, (counts, running) => {
    setText(out('sent'), counts.sent);
    setText(out('acked'), counts.acked);
    setText(out('errors'), counts.errors);
    out('errors').title = counts.lastError;
    form.dataset.running = String(running);
    setText(button, running ? t('forms.stopLoad') : t('forms.startLoad'));
  });
  form.addEventListener('submit', event => {
    event.preventDefault();
    if (load.running()) { load.stop(); status.show(t('forms.loadStopped'), 'ok'); return; }
    const topic = fields(form).topic.value;
    const rate = Math.max(1, Number(fields(form).rate.value) || 20);
    if (!topic) { status.show(t('forms.needTopic'), 'error'); return; }
    const acks = fields(form).acks.value;
    load.start(topic, rate, acks);
    status.show(t('forms.loadStarted', rate, topic, acks), 'ok');
  });
}

function wireBrowse(form, results, api, status) {
  const next = el('button', { type: 'button', id: 'browse-next', class: 'small', hidden: true }, t('forms.nextPage'));
  const caption = el('p', { class: 'muted' });
  const tbody = el('tbody');
  const table = el('table', { class: 'records', hidden: true },
    el('thead', {}, el('tr', {}, ...['offset', 'key', 'value', 'timestamp']
      .map(h => el('th', { attrs: { scope: 'col' } }, t(`forms.col.${h}`))))),
    tbody);
  results.replaceChildren(caption, el('div', { class: 'table-wrap' }, table), next);

  async function browse(offset) {
    const f = fields(form);
    const topic = f.topic.value;
    const partition = Number(f.partition.value) || 0;
    if (!topic) { status.show(t('forms.needTopic'), 'error'); return; }
    f.offset.value = String(offset);
    const records = await run(status, t('forms.reading', `${topic}-${partition}`, offset),
      () => api.browse(topic, partition, offset), r => t('forms.read', (r || []).length, `${topic}-${partition}`));
    if (records === undefined) return;
    const list = records || [];
    tbody.replaceChildren(...list.map(recordRow));
    table.hidden = list.length === 0;
    caption.textContent = list.length === 0
      ? t('forms.noRecords', `${topic}-${partition}`, offset)
      : t('forms.offsets', `${topic}-${partition}`, list[0].offset, list[list.length - 1].offset);
    next.hidden = list.length === 0;
    next.onclick = () => browse(list[list.length - 1].offset + 1);
  }

  form.addEventListener('submit', event => {
    event.preventDefault();
    browse(Math.max(0, Number(fields(form).offset.value) || 0));
  });
}

function recordRow(r) {
  const text = b64 => { try { return decodeBase64Utf8(b64); } catch (e) { return t('forms.notBase64'); } };
  const key = text(r.key);
  const value = text(r.value);
  const cell = (content, cls) => el('td', { class: cls, title: content ?? '' }, content ?? 'null');
  return el('tr', { data: { offset: r.offset } },
    el('td', { class: 'num' }, r.offset),
    cell(key, key === null ? 'muted' : ''),
    cell(value, 'value'),
    el('td', { title: r.timestamp ? new Date(r.timestamp).toString() : '' }, r.timestamp ? formatTime(r.timestamp) : '—'));
}
