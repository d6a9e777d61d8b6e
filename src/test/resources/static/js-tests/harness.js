// A minimal test runner for the dashboard's pure modules: test() registers, run() executes them and writes one
// line per test into <pre id="results" data-passed="N" data-failed="M">, which a JUnit browser test reads.
export function createSuite() {
  const tests = [];
  return {
    test: (name, fn) => tests.push({ name, fn }),
    run() {
      const lines = [];
      let passed = 0;
      let failed = 0;
      for (const { name, fn } of tests) {
        try {
          fn();
          passed++;
          lines.push(`ok ${name}`);
        } catch (e) {
          failed++;
          lines.push(`FAIL ${name}: ${e && e.message}`);
        }
      }
      if (typeof document !== 'undefined') {
        const pre = document.getElementById('results');
        pre.textContent = lines.join('\n') + `\n\n${passed} passed, ${failed} failed`;
        pre.dataset.passed = String(passed);
        pre.dataset.failed = String(failed);
      }
      return { passed, failed, lines };
    },
  };
}

export function eq(actual, expected, what = 'value') {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}
