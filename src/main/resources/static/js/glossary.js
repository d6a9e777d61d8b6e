// Plain-language definitions of the words the dashboard uses, in the page's language (the catalogue's
// js.glossary.<term>.name / .text; i18n.js). One source for the #glossary list and for every hover: elements with
// data-term="isr" get the definition as their title (see applyTerms). Kafka's own terms (ISR, LEO, HW, acks, …)
// keep their names in every language; the definitions explain them.
import { el } from './dom.js';
import { t, has } from './i18n.js';

/** The terms, in the glossary's order. */
export const TERMS = ['record', 'topic', 'partition', 'offset', 'broker', 'controller', 'leader', 'ar', 'isr', 'osr',
  'leo', 'hw', 'lag_time', 'acks', 'min_isr', 'leader_epoch', 'truncation', 'reassignment', 'fenced', 'broker_epoch',
  'incarnation', 'under_replicated', 'offline', 'unreachable', 'consumer_group', 'generation', 'rebalance',
  'coordinator', 'consumer_lag', 'committed_offset', 'internal_topic', 'bootstrap_server', 'client_id', 'principal',
  'below_min_isr', 'member_id'];

/** A term's name, e.g. "ISR (in-sync replicas)". */
export function termName(key) {
  return t(`glossary.${key}.name`);
}

/** The hover text for a term: "ISR (in-sync replicas): The replicas …"; '' for an unknown term. */
export function definition(key) {
  if (!has(`js.glossary.${key}.name`)) return '';
  return t('glossary.definition', termName(key), t(`glossary.${key}.text`));
}

/** An <abbr> that shows `label` and carries the definition as its hover. */
export function term(key, label) {
  return el('abbr', { title: definition(key), data: { term: key } }, label ?? termName(key));
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
  const items = TERMS.map(key => el('div', { id: 'term-' + key },
    el('dt', {}, termName(key)),
    el('dd', {}, t(`glossary.${key}.text`))));
  dl.replaceChildren(...items);
}
