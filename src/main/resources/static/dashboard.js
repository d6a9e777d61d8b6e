// The cluster dashboard. render(state) draws one /dashboard/state snapshot (scope=cluster) and knows nothing about
// where it came from; poll() feeds it once a second. The WebSocket issue will feed the same render from a socket
// (snapshot on subscribe, then deltas), so keep the two apart.
(function () {
  const connection = document.getElementById('connection');

  // What a partition without offsets shows in the log column, by its state (see ClusterSnapshot.PartitionState).
  const NO_OFFSETS = {
    offline: { text: 'offline', title: 'No leader: no replica in the ISR is alive', kind: 'bad' },
    unreachable: { text: 'unreachable', title: 'The leader did not answer in time', kind: 'warn' },
    leader_not_available:
      { text: 'no leader yet', title: 'The leader has not taken over this partition yet', kind: 'warn' },
  };

  function cell(text, className) {
    const td = document.createElement('td');
    td.textContent = text;
    if (className) td.className = className;
    return td;
  }

  function badge(text, kind, title) {
    const span = document.createElement('span');
    span.className = 'badge ' + kind;
    span.textContent = text;
    if (title) span.title = title;
    return span;
  }

  function cellWith(...children) {
    const td = document.createElement('td');
    td.append(...children);
    return td;
  }

  function list(ids) {
    return '[' + ids.join(',') + ']';
  }

  function formatBytes(n) {
    if (n < 1024) return n + ' B';
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KiB';
    if (n < 1024 * 1024 * 1024) return (n / 1024 / 1024).toFixed(1) + ' MiB';
    return (n / 1024 / 1024 / 1024).toFixed(2) + ' GiB';
  }

  function bar(o) {
    const outer = document.createElement('div');
    outer.className = 'bar';
    outer.setAttribute('role', 'img');
    outer.setAttribute('aria-label', (o.high_watermark - o.log_start_offset) + ' of '
      + (o.log_end_offset - o.log_start_offset) + ' offsets committed');
    const inner = document.createElement('div');
    inner.className = 'committed';
    const span = o.log_end_offset - o.log_start_offset;
    inner.style.width = (span === 0 ? 0 : (100 * (o.high_watermark - o.log_start_offset) / span)) + '%';
    outer.appendChild(inner);
    const td = cellWith(outer);
    td.title = o.status_line;
    return td;
  }

  function brokerRow(b, state) {
    const tr = document.createElement('tr');
    tr.dataset.broker = b.broker_id;
    if (b.state === 'fenced') tr.className = 'fenced';
    const id = cell(b.broker_id);
    if (b.broker_id === state.broker_id) id.append(' (this page)');
    const alive = b.state === 'alive'
      ? badge('alive', 'ok')
      : badge('fenced', 'bad', 'Fenced: missed its heartbeats, leads no partition');
    const role = b.controller
      ? cellWith(badge('controller', 'controller', 'Active controller'), ' epoch ' + state.controller_epoch)
      : cell('');
    const answered = b.reachable === true ? cell('yes')
      : b.reachable === false ? cellWith(badge('no answer', 'warn', 'Did not answer within 500 ms'))
      : cell('not asked', 'unknown');
    tr.append(id, cell(b.host + ':' + b.port), cellWith(alive), role, cell(b.broker_epoch), answered);
    return tr;
  }

  // Each replica with its log end offset (LEO) and lag as the leader reports them: "2 ★ 120 · 3 118 (−2)".
  function replicasCell(p) {
    const progress = (p.offsets && p.offsets.replicas) || [];
    if (progress.length === 0) return cell(list(p.replicas));
    const td = document.createElement('td');
    progress.forEach((r, i) => {
      if (i > 0) td.append(' · ');
      const span = document.createElement('span');
      span.className = 'replica' + (r.broker_id === p.leader ? ' leader' : '') + (r.in_sync ? '' : ' out-of-sync');
      span.dataset.replica = r.broker_id;
      const leo = r.log_end_offset < 0 ? '?' : r.log_end_offset;
      span.textContent = r.broker_id + (r.broker_id === p.leader ? ' ★ ' : ' ') + leo
        + (r.lag > 0 ? ' (−' + r.lag + ')' : '');
      span.title = 'broker ' + r.broker_id + (r.broker_id === p.leader ? ' (leader)' : '')
        + ': log end offset ' + leo + ', ' + (r.lag < 0 ? 'not fetched yet in this epoch' : r.lag + ' behind the leader')
        + (r.in_sync ? ', in sync' : ', out of sync');
      td.append(span);
    });
    return td;
  }

  function partitionRow(p) {
    const tr = document.createElement('tr');
    tr.dataset.partition = p.topic + '-' + p.partition;
    tr.className = p.state;
    const leader = p.leader < 0 ? cellWith(badge('offline', 'bad', 'No leader')) : cell(p.leader);
    const osr = p.osr.length === 0 ? cell(list(p.osr))
      : cellWith(badge(list(p.osr), 'warn', 'Under-replicated: these replicas are out of sync'));
    tr.append(cell(p.topic), cell(p.partition), leader, cell(p.leader_epoch), replicasCell(p),
      cell(list(p.isr)), osr);
    const o = p.offsets;
    if (o) {
      tr.append(cell(o.log_start_offset), cell(o.high_watermark), cell(o.log_end_offset), bar(o),
        cell(formatBytes(o.size_bytes)), cell(o.segments));
    } else {
      const why = NO_OFFSETS[p.state] || { text: p.state, title: '', kind: 'warn' };
      const unknown = () => { const td = cell('—', 'unknown'); td.title = why.title; return td; };
      tr.append(unknown(), unknown(), unknown(), cellWith(badge(why.text, why.kind, why.title)), unknown(), unknown());
    }
    return tr;
  }

  function render(state) {
    document.getElementById('cluster-id').textContent = state.cluster_id;
    document.getElementById('controller').textContent =
      state.controller_id < 0 ? 'none elected' : 'b' + state.controller_id + ' (epoch ' + state.controller_epoch + ')';
    document.getElementById('metadata-offset').textContent = state.metadata_offset;
    document.querySelector('#brokers tbody').replaceChildren(...state.brokers.map(b => brokerRow(b, state)));
    document.querySelector('#partitions tbody').replaceChildren(...state.partitions.map(partitionRow));
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

  window.tributaryDashboard = { render };
  poll();
})();
