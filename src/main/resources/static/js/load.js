// Steady test load: while running, sends a batch every TICK_MS so that `rate` records per second go out, and
// counts sent / acked / errors. Batches go to whichever broker serves the page at that moment, so the load
// continues across a failover (and the errors during one are visible).

const TICK_MS = 200;
const MAX_IN_FLIGHT = 5; // a slow broker gets fewer batches instead of an ever-growing queue

export function createLoad(api, onUpdate) {
  let timer = null;
  let owed = 0;
  let inFlight = 0;
  let n = 0;
  const counts = { sent: 0, acked: 0, errors: 0, lastError: '' };

  function tick(topic, rate, acks) {
    owed = Math.min(owed + (rate * TICK_MS) / 1000, rate); // at most one second of backlog
    const size = Math.floor(owed);
    if (size === 0 || inFlight >= MAX_IN_FLIGHT) return;
    owed -= size;
    const records = Array.from({ length: size }, () => ({ value: { n: n++, text: 'steady load' } }));
    counts.sent += size;
    inFlight++;
    api.produce(topic, records, acks)
      .then(result => {
        const offsets = (result && result.offsets) || [];
        const failed = offsets.filter(o => o.error_code || o.error);
        counts.acked += offsets.length - failed.length;
        counts.errors += failed.length + Math.max(0, size - offsets.length);
        if (failed.length) counts.lastError = failed[0].error || `error ${failed[0].error_code}`;
      })
      .catch(e => { counts.errors += size; counts.lastError = e.message; })
      .finally(() => { inFlight--; onUpdate(counts, running()); });
    onUpdate(counts, running());
  }

  const running = () => timer !== null;

  return {
    start(topic, rate, acks = 'all') {
      this.stop();
      Object.assign(counts, { sent: 0, acked: 0, errors: 0, lastError: '' });
      owed = 0;
      timer = setInterval(() => tick(topic, rate, acks), TICK_MS);
      onUpdate(counts, true);
    },
    stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
      onUpdate(counts, false);
    },
    running,
  };
}
