// The "Trace one record" form: sends one record through any broker (the leader of the chosen partition measures
// it) and draws its steps in #trace-result. Failures go to the shared #action-status line.
import { el } from './dom.js';
import { renderTrace } from './render-trace.js';
import { compareTopicNames } from './state.js';
import { t } from './i18n.js';

export function createTrace(api, form, result, status) {
  const field = name => form.elements.namedItem(name);
  form.addEventListener('submit', async event => {
    event.preventDefault();
    const topic = field('topic').value;
    if (!topic) { status.show(t('forms.needTopic'), 'error'); return; }
    const acks = field('acks').value;
    const partition = Math.max(0, Number(field('partition').value) || 0);
    status.show(t('trace.tracing', `${topic}-${partition}`, acks), 'pending');
    try {
      const report = await api.trace(topic, acks, partition);
      renderTrace(result, report);
      status.show(t('trace.traced', report.offset, `${topic}-${partition}`, acks), 'ok');
    } catch (e) {
      status.show(e.message, 'error');
    }
  });
  return {
    /** Keeps the topic picker in step with the cluster. */
    update(state) {
      const select = field('topic');
      const names = [...state.topics.keys()].sort(compareTopicNames);
      if ([...select.options].map(o => o.value).join('\u0000') === names.join('\u0000')) return;
      const selected = select.value;
      select.replaceChildren(...names.map(name => el('option', { value: name }, name)));
      if (names.includes(selected)) select.value = selected;
    },
  };
}
