// The "Trace one record" panel: the steps of one record's life as its leader measured them, in the order they
// happened, each with its time since the request reached the leader; the step the producer's answer waited for
// (with the chosen acks) is marked. A step that did not happen has no time, only the leader's reason.
import { el } from './dom.js';

const WAITS = {
  nothing: 'acks=0: the producer waits for nothing (the leader does not answer)',
  appended: 'acks=1: the answer waits for the leader\'s append',
  committed: 'acks=all: the answer waits for the HW to pass the record (every ISR member has it)',
};

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
    `${report.topic}-${report.partition} offset ${report.offset} · leader ${report.leader_id} `
    + `(epoch ${report.leader_epoch}) · ISR [${report.isr.join(', ')}] · acks=${report.acks}`);
  const waits = el('p', { class: 'hint' }, WAITS[report.waited_for] || '',
    report.complete ? '' : ` · some steps did not happen within ${report.wait_ms / 1000} s`);
  const list = el('ol', { class: 'trace-steps' }, ...traceRows(report).map(row =>
    el('li', { data: { step: row.step, broker: row.broker, happened: row.happened, waited: row.waited } },
      el('span', { class: 'trace-time' }, row.time), ' ',
      el('span', { class: 'trace-text' }, row.text),
      row.waited ? el('b', { class: 'trace-waited' }, ' ← the producer\'s answer waited for this') : null)));
  container.replaceChildren(caption, waits, list);
}
