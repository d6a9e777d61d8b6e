// The dashboard's WebSocket, kept alive across broker failures.
//
// Any broker serves the whole cluster, so when the serving broker goes quiet the page simply moves to another one.
// "Quiet" means: the socket closed or errored, or no message (not even a heartbeat, sent every 1 s) came for
// SILENCE_MS, which is how a frozen or SIGKILLed broker whose TCP connection lingers is noticed. The caller decides
// which broker to try next (chooseTarget), so the rotation policy stays pure and testable in state.js.
import { t } from './i18n.js';

export const SILENCE_MS = 2000;
const WATCHDOG_MS = 250;
const FIRST_RETRY_MS = 200;   // the first retry goes out at once: usually another broker is healthy
const RETRY_MS = 700;         // then every ~0.7 s, cycling through the brokers, forever

/**
 * @param {object} options
 * @param {{host: string, port: string|number, brokerId: ?number}} options.initial the first target
 * @param {(lostBrokerId: ?number, attempt: number) => {host, port, brokerId}} options.chooseTarget
 * @param {(message: object, target) => boolean} options.onMessage returns false when the state needs a resync
 * @param {(status: object) => void} options.onStatus {state: 'connecting'|'live'|'reconnecting', target, lostBrokerId,
 *     reason, attempt}
 */
export function createConnection({ initial, chooseTarget, onMessage, onStatus }) {
  let socket = null;
  let target = initial;
  let live = false;            // the current socket delivered its snapshot
  let lastMessageAtMs = 0;
  let attempt = 0;             // reconnect attempts since the connection was last live
  let lostBrokerId = null;
  let retryTimer = null;

  function open(next) {
    target = next;
    live = false;
    lastMessageAtMs = Date.now(); // the new socket gets SILENCE_MS to deliver its snapshot
    let ws;
    try {
      ws = new WebSocket(socketUrl(next));
    } catch (e) {
      fail(t('connection.reason.open', e.message));
      return;
    }
    socket = ws;
    ws.onmessage = event => {
      if (ws !== socket) return;
      lastMessageAtMs = Date.now();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (e) {
        fail(t('connection.reason.unreadable'));
        return;
      }
      if (onMessage(message, next) === false) {
        fail(t('connection.reason.gap'));
        return;
      }
      if (!live && message.type === 'snapshot') {
        // The first socket is opened by address only; the snapshot says which broker answered.
        if (message.state) target = { ...next, brokerId: message.state.broker_id };
        live = true;
        attempt = 0;
        lostBrokerId = null;
        onStatus({ state: 'live', target: next });
      }
    };
    ws.onerror = () => { if (ws === socket) fail(t('connection.reason.error')); };
    ws.onclose = () => { if (ws === socket) fail(t('connection.reason.closed')); };
  }

  /** Drops the current socket (once) and schedules the next attempt. */
  function fail(reason) {
    const wasLive = live;
    if (socket) {
      const old = socket;
      socket = null;
      old.onmessage = old.onerror = old.onclose = null;
      try { old.close(); } catch (e) { /* already closed */ }
    } else if (retryTimer !== null) {
      return; // already waiting to retry
    }
    live = false;
    if (wasLive || lostBrokerId === null) lostBrokerId = target.brokerId ?? null;
    const next = chooseTarget(lostBrokerId, attempt);
    onStatus({ state: 'reconnecting', target: next, lostBrokerId, reason, attempt });
    const delay = attempt === 0 ? FIRST_RETRY_MS : RETRY_MS;
    attempt++;
    retryTimer = setTimeout(() => { retryTimer = null; open(next); }, delay);
  }

  function watchdog() {
    if (socket && Date.now() - lastMessageAtMs > SILENCE_MS) {
      fail(live ? t('connection.reason.silent', SILENCE_MS / 1000) : t('connection.reason.noSnapshot', SILENCE_MS / 1000));
    }
  }

  return {
    start() {
      onStatus({ state: 'connecting', target, attempt: 0 });
      setInterval(watchdog, WATCHDOG_MS);
      open(target);
    },
    /** The target of the current (or next) socket: HTTP actions go to the same broker. */
    target: () => target,
  };
}

export function socketUrl({ host, port }) {
  const scheme = globalThis.location && globalThis.location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${hostPort(host, port)}/dashboard/ws`;
}

export function httpUrl({ host, port }) {
  const scheme = globalThis.location && globalThis.location.protocol === 'https:' ? 'https' : 'http';
  return `${scheme}://${hostPort(host, port)}`;
}

function hostPort(host, port) {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host; // IPv6 literal
  return port ? `${h}:${port}` : h;
}
