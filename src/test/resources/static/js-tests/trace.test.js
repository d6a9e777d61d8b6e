// Unit tests of the "Trace one record" panel's rows (render-trace.js).
import * as T from '/js/render-trace.js';
import { createSuite, eq } from '/js-tests/harness.js';

const { test, run } = createSuite();
const step = (name, atMs, over = {}) => ({ step: name, broker_id: 1, log_end_offset: 18, high_watermark: 17,
  at_ms: atMs, text: `${name} text`, ...over });

test('a step\'s time reads as milliseconds since the request reached the leader, one decimal', () => {
  eq(T.formatStepTime(0.44), '+0.4 ms');
  eq(T.formatStepTime(12), '+12.0 ms');
  eq(T.formatStepTime(null), '—', 'did not happen');
  eq(T.formatStepTime(undefined), '—');
});

test('the rows keep the leader\'s order and mark the step the answer waited for', () => {
  const report = { waited_for: 'committed', steps: [step('appended', 0.2), step('replicated', 1.5, { broker_id: 2 }),
    step('committed', 1.6), step('acknowledged', 1.7), step('replicated', null, { broker_id: 3 })] };
  const rows = T.traceRows(report);
  eq(rows.map(r => r.step), ['appended', 'replicated', 'committed', 'acknowledged', 'replicated']);
  eq(rows.map(r => r.waited), [false, false, true, false, false]);
  eq(rows.map(r => r.happened), [true, true, true, true, false]);
  eq(rows[4].time, '—');
  eq(rows[1].broker, 2);
});

test('with acks=0 the answer waited for nothing: no step is marked', () => {
  const rows = T.traceRows({ waited_for: 'nothing', steps: [step('acknowledged', 0), step('appended', 0.3)] });
  eq(rows.map(r => r.waited), [false, false]);
});

run();
