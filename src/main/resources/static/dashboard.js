// Polls the broker's snapshot once a second and renders it. The dashboard issue replaces polling with a
// WebSocket that sends a snapshot on subscribe and then deltas; the rendering stays.
(function () {
  const connection = document.getElementById('connection');

  function cell(text) {
    const td = document.createElement('td');
    td.textContent = text;
    return td;
  }

  function formatBytes(n) {
    if (n < 1024) return n + ' B';
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KiB';
    if (n < 1024 * 1024 * 1024) return (n / 1024 / 1024).toFixed(1) + ' MiB';
    return (n / 1024 / 1024 / 1024).toFixed(2) + ' GiB';
  }

  function bar(p) {
    const td = document.createElement('td');
    const outer = document.createElement('div');
    outer.className = 'bar';
    const inner = document.createElement('div');
    inner.className = 'committed';
    const span = p.log_end_offset - p.log_start_offset;
    inner.style.width = (span === 0 ? 0 : (100 * (p.high_watermark - p.log_start_offset) / span)) + '%';
    outer.appendChild(inner);
    td.appendChild(outer);
    td.title = p.status;
    return td;
  }

  function render(state) {
    document.getElementById('cluster-id').textContent = state.cluster_id;
    const brokers = document.querySelector('#brokers tbody');
    brokers.replaceChildren(...state.brokers.map(b => {
      const tr = document.createElement('tr');
      tr.append(cell(b.broker_id), cell(b.host + ':' + b.port), cell(b.state));
      return tr;
    }));
    const partitions = document.querySelector('#partitions tbody');
    partitions.replaceChildren(...state.partitions.map(p => {
      const tr = document.createElement('tr');
      tr.dataset.partition = p.topic + '-' + p.partition;
      tr.append(cell(p.topic), cell(p.partition), cell(p.leader), cell(p.leader_epoch),
        cell('[' + p.replicas.join(',') + ']'), cell('[' + p.isr.join(',') + ']'),
        cell(p.log_start_offset), cell(p.high_watermark), cell(p.log_end_offset), bar(p),
        cell(formatBytes(p.size_bytes)), cell(p.segments));
      return tr;
    }));
    document.getElementById('empty').hidden = state.partitions.length > 0;
  }

  async function poll() {
    try {
      const response = await fetch('/dashboard/state', { cache: 'no-store' });
      if (!response.ok) throw new Error('HTTP ' + response.status);
      render(await response.json());
      connection.textContent = 'live';
      connection.className = 'pill live';
    } catch (e) {
      connection.textContent = 'broker unreachable';
      connection.className = 'pill down';
    }
    setTimeout(poll, 1000);
  }

  poll();
})();
