// The running guided demo (`./tributary demo NAME`), as a banner above the page: #demo-banner[data-demo=name]
// [data-step=N] with the demo's name, "step N of M", the step's title and text (already in the demo's language, as
// the demo runner sends them). Hidden when no demo runs. The partitions it uses are highlighted by
// render-partitions.js (demoMarks in state.js).
import { setText, setData, setHidden } from './dom.js';
import { t } from './i18n.js';

export function createDemoView(banner) {
  const part = name => banner.querySelector('.demo-' + name);

  function render(state, changes) {
    if (!changes.full && !changes.demo) return;
    const demo = state.demo;
    setHidden(banner, !demo);
    setData(banner, 'demo', demo ? demo.name : '');
    setData(banner, 'step', demo ? demo.step ?? '' : '');
    if (!demo) return;
    setText(part('name'), demo.name);
    setText(part('step'), Number.isInteger(demo.step) && Number.isInteger(demo.steps)
      ? t('demo.step', demo.step, demo.steps) : '');
    setText(part('title'), demo.title ?? '');
    setText(part('text'), demo.text ?? '');
  }
  return { render };
}
