// The two forms that move replicas (admin only, like the rest of #actions): "Move replicas" moves one partition
// (POST/DELETE .../partitions/{p}/reassignment) and is also filled from a partition row's "move" button;
// "Balance" shows the balancer's plan (GET .../balance) and carries it out (POST), then follows the run once a
// second until it is done or failed. What they say comes from balance-model.js; answers and errors go both to
// #action-status and to the form's own result line, which stays in view when the form is scrolled to. Beside them,
// "Add a broker" gives the balance a broker to move replicas onto (a broker card's Decommission empties one).
import { el, setText, setData, setHidden } from './dom.js';
import { fields, run, createStatus, fillTopics } from './forms.js';
import { compareTopicNames } from './state.js';
import { BALANCE_POLL_MS, BALANCE_POLL_MAX_FAILURES, balanceView, describeCancel, describeMove,
  describePartitionForMove, formatBrokerIds, parseBrokerIds, partitionForMove } from './balance-model.js';
import { idList } from './format.js';
import { t } from './i18n.js';

/** Shows every message on both statuses: the panel's and the form's own. */
function bothStatuses(a, b) {
  return { show(text, kind) { a.show(text, kind); b.show(text, kind); } };
}

/**
 * The "Move replicas" form: topic, partition, the target broker ids (prefilled with the partition's replicas, or
 * its target while it moves, until the user types), Move, and Cancel while the partition is being moved.
 */
export function createMoveForm(api, form, panelStatus) {
  const f = fields(form);
  const status = bothStatuses(panelStatus, createStatus(form.querySelector('.form-result')));
  const cancel = form.querySelector('[data-move="cancel"]');
  const now = form.querySelector('.move-now');
  let lastState = null;
  let edited = false; // the user typed the broker ids: updates leave them alone until another partition is chosen

  const chosen = () => ({ topic: f.topic.value, partition: Math.max(0, Math.floor(Number(f.partition.value) || 0)) });

  function refresh() {
    if (!lastState) return;
    const { topic, partition } = chosen();
    const info = topic ? partitionForMove(lastState, topic, partition) : null;
    setText(now, topic ? describePartitionForMove(info) : t('forms.needTopic'));
    setHidden(cancel, !(info && info.move));
    setData(form, 'moving', !!(info && info.move));
    if (info && !edited) {
      const ids = formatBrokerIds(info.replicas);
      if (f.replicas.value !== ids) f.replicas.value = ids;
    }
    const described = lastState.topics.get(topic);
    if (described && described.partitions > 0) f.partition.max = String(described.partitions - 1);
  }

  const choose = () => { edited = false; refresh(); };
  f.topic.addEventListener('change', choose);
  f.partition.addEventListener('input', choose);
  f.replicas.addEventListener('input', () => { edited = true; });

  form.addEventListener('submit', async event => {
    event.preventDefault();
    const { topic, partition } = chosen();
    if (!topic) { status.show(t('forms.needTopic'), 'error'); return; }
    const parsed = parseBrokerIds(f.replicas.value);
    if (parsed.error) { status.show(parsed.error, 'error'); return; }
    const ok = await run(status, t('moves.asking', `${topic}-${partition}`, idList(parsed.ids)),
      () => api.moveReplicas(topic, partition, parsed.ids), describeMove);
    if (ok !== undefined) edited = false;
  });

  cancel.addEventListener('click', async () => {
    const { topic, partition } = chosen();
    const ok = await run(status, t('moves.cancelling', `${topic}-${partition}`),
      () => api.cancelMove(topic, partition), describeCancel);
    if (ok !== undefined) edited = false;
  });

  return {
    /** Keeps the topic picker, the prefilled ids and the Cancel button in step with the cluster. */
    update(state) {
      lastState = state;
      fillTopics(f.topic, [...state.topics.keys()].sort(compareTopicNames));
      refresh();
    },
    /** A partition row's "move" button: choose that partition, show the form, ready to type the ids. */
    prefill(topic, partition) {
      if (![...f.topic.options].some(o => o.value === topic)) return;
      f.topic.value = topic;
      f.partition.value = String(partition);
      choose();
      form.scrollIntoView({ block: 'nearest' });
      f.replicas.focus();
    },
  };
}

/**
 * The "Balance" form: "Show plan" draws the plan (lines, a per-broker table, the broker's own text); "Balance now"
 * (only once a plan that is not balanced is shown) starts it, and while it runs the form asks again every second.
 * form[data-state]: idle | balanced | unbalanced | running; form[data-execution]: '' | running | done | failed.
 */
export function createBalanceForm(api, form, result, panelStatus) {
  const f = fields(form);
  const execute = form.querySelector('[data-balance="execute"]');
  const own = createStatus(form.querySelector('.form-result'));
  const status = bothStatuses(panelStatus, own);
  const lines = el('div', { class: 'balance-lines' });
  const tbody = el('tbody');
  const th = text => el('th', { attrs: { scope: 'col' } }, text);
  // The load columns show only when the plan carries the figures (a broker before load was measured has none).
  const bytesInTh = th(t('balance.col.bytesIn'));
  const sizeTh = th(t('balance.col.size'));
  const table = el('table', { class: 'balance-brokers', hidden: true },
    el('caption', {}, t('balance.tableCaption')),
    el('thead', {}, el('tr', {}, th(t('balance.col.broker')), th(t('balance.col.role')),
      th(t('balance.col.replicas')), th(t('balance.col.leaders')), bytesInTh, sizeTh)),
    tbody);
  const plan = el('pre', { class: 'balance-plan', hidden: true });
  result.replaceChildren(lines, el('div', { class: 'table-wrap' }, table), plan);

  let asked = 0;        // answers to older requests than the newest are dropped
  let pollTimer = null;
  let pollFailures = 0;

  function draw(answer) {
    const view = balanceView(answer);
    lines.replaceChildren(...view.lines.map(line => el('p', {}, line)));
    setData(lines, 'kind', view.kind);
    tbody.replaceChildren(...view.brokers.map(b => el('tr', { class: b.changes ? 'changes' : '', data: { broker: b.id } },
      el('td', { class: 'num' }, b.id), el('td', {}, b.role), el('td', { class: 'num' }, b.replicas),
      el('td', { class: 'num' }, b.leaders),
      el('td', { class: 'num', hidden: !view.bytesIn }, b.bytesIn),
      el('td', { class: 'num', hidden: !view.sizes }, b.size))));
    setHidden(bytesInTh, !view.bytesIn);
    setHidden(sizeTh, !view.sizes);
    setHidden(table, view.brokers.length === 0);
    setText(plan, view.planText);
    setHidden(plan, view.planText === '');
    setData(form, 'state', view.running ? 'running' : view.balanced ? 'balanced' : 'unbalanced');
    setData(form, 'execution', answer.execution ? answer.execution.state : '');
    execute.disabled = !view.canExecute;
    execute.title = view.balanced ? t('balance.nothingToDo') : view.running ? t('balance.alreadyRunning') : '';
    clearTimeout(pollTimer);
    pollTimer = view.running ? setTimeout(poll, BALANCE_POLL_MS) : null;
  }

  /** One GET .../balance; returns whether it drew an answer. */
  async function fetchPlan() {
    const mine = ++asked;
    const answer = await api.balancePlan();
    if (mine !== asked) return false;
    draw(answer);
    return true;
  }

  async function poll() {
    pollTimer = null;
    try {
      await fetchPlan();
      pollFailures = 0;
    } catch (e) {
      pollFailures++;
      own.show(e.message, 'error');
      if (pollFailures < BALANCE_POLL_MAX_FAILURES) pollTimer = setTimeout(poll, BALANCE_POLL_MS);
    }
  }

  form.addEventListener('submit', event => {
    event.preventDefault();
    run(status, t('balance.asking'), fetchPlan, () => t('balance.shown'));
  });

  execute.addEventListener('click', async () => {
    const moves = Math.min(100, Math.max(1, Math.floor(Number(f.max_concurrent_moves.value) || 2)));
    execute.disabled = true;
    const mine = ++asked;
    const answer = await run(status, t('balance.starting', moves), () => api.balance(moves),
      a => (a.execution && a.execution.state === 'running' ? t('balance.started', a.execution.moves_total)
        : t('balance.nothingMoved')));
    if (answer !== undefined && mine === asked) draw(answer);
    else if (answer === undefined) poll(); // e.g. 409: one runs already; show it (and follow it)
  });
}

/**
 * The "Add a broker" form: an optional rack, then POST /dashboard/actions/cluster/add-broker, which runs
 * ./tributary add-broker on the serving broker. Shown only where the launcher-driven actions are (the state's
 * fault_actions, as the broker cards' Start and Decommission); the new broker then shows through the socket.
 */
export function createAddBrokerForm(api, form, panelStatus) {
  const f = fields(form);
  const status = bothStatuses(panelStatus, createStatus(form.querySelector('.form-result')));

  form.addEventListener('submit', event => {
    event.preventDefault();
    const rack = f.rack.value.trim(); // the broker checks it: its message says what a rack name may hold
    run(status, rack ? t('addBroker.askingRack', rack) : t('addBroker.asking'), () => api.addBroker(rack),
      answer => (answer && answer.message) || t('addBroker.accepted'));
  });

  return {
    update(state) {
      setHidden(form, !(state.header && state.header.fault_actions));
    },
  };
}
