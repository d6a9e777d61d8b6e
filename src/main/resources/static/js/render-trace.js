// The "Trace one record" panel: the steps of one record's life as its leader measured them, in the order they
// happened, each with its time since the request reached the leader; the step the producer's answer waited for
// (with the chosen acks) is marked. A step that did not happen has no time, only the leader's reason.
import { el } from './dom.js';
import { t, has } from './i18n.js';

/** What the producer's answer waited for, by report.waited_for: js.trace.waits.<nothing|appended|committed>. */
function waits(waitedFor) {
  return waitedFor && has(`js.trace.waits.${waitedFor}`) ? t(`trace.waits.${waitedFor}`) : '';
}

/** "+0.4 ms" (one decimal), or "—" for a step that did not happen. */
export function formatStepTime(atMs) {
  return atMs === null || atMs === undefined ? '—' : `+${Number(atMs).toFixed(1)} ms`;
}

/** The report's steps as rows: {step, time, text, waited} — waited marks the step the answer waited for. */
export function traceRows(report) {
  return report.steps.map(s => ({
    step: s.step,
    broker: s.broker_id,
    time: formatStepTime(s.at_ms),
    happened: s.at_ms !== null && s.at_ms !== undefined,
    text: s.text,
    waited: s.step === report.waited_for,
  }));
}

export function renderTrace(container, report) {
  const caption = el('p', { class: 'trace-caption' },
    t('trace.caption', `${report.topic}-${report.partition}`, report.offset, report.leader_id, report.leader_epoch,
      report.isr.join(', '), report.acks));
  const waited = el('p', { class: 'hint' }, waits(report.waited_for),
    report.complete ? '' : t('trace.incomplete', report.wait_ms / 1000));
  const list = el('ol', { class: 'trace-steps' }, ...traceRows(report).map(row =>
    el('li', { data: { step: row.step, broker: row.broker, happened: row.happened, waited: row.waited } },
      el('span', { class: 'trace-time' }, row.time), ' ',
      el('span', { class: 'trace-text' }, row.text),
      row.waited ? el('b', { class: 'trace-waited' }, t('trace.waited')) : null)));
  container.replaceChildren(caption, waited, list);
}
