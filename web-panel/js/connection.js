// @ts-check
/**
 * connection.js — owns the one WebSocket to the daemon (`/api/ws/browser`): opening it with the
 * `porthole.v1` + `porthole.token.<t>` subprotocols, reconnecting with backoff (1 s, 2 s, 4 s …
 * capped at 10 s), and splitting incoming messages into JSON events and binary JPEG frames.
 * It knows nothing about what the messages mean; porthole-pane.js does.
 */

/** @typedef {'idle' | 'connecting' | 'open' | 'waiting'} ConnState */

/**
 * @typedef {Object} ConnectionOptions
 * @property {string} url                 ws(s) URL of the pane endpoint
 * @property {string[]} protocols         WebSocket subprotocols to offer
 * @property {() => void} onOpen          socket is open (send start/screencast here)
 * @property {(msg: {type: string, [k: string]: any}) => void} onMessage  a JSON text message
 * @property {(data: ArrayBuffer) => void} onFrame  a binary message (one JPEG frame)
 * @property {(state: ConnState, detail: string) => void} onState  state changes, for the status line
 */

const MIN_DELAY_MS = 1000;
const MAX_DELAY_MS = 10000;
/** An open socket that lived at least this long resets the backoff when it closes. */
const STABLE_MS = 5000;

/**
 * The pane WebSocket URL of the daemon at `api` (an http(s) base URL such as
 * `http://127.0.0.1:7878`; relative to the page, so `''` means the page's own origin).
 * @param {string} api
 */
export function paneSocketUrl(api) {
  const url = new URL('/api/ws/browser', new URL(api || '/', location.href));
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

export class Connection {
  /** @param {ConnectionOptions} opts */
  constructor(opts) {
    this.opts = opts;
    /** @type {WebSocket | null} */
    this.ws = null;
    /** Consecutive failed attempts; the next delay is 1 s × 2^attempt. */
    this.attempt = 0;
    this.openedAt = 0;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.retryTimer = undefined;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.countdownTimer = undefined;
    this.active = false;
    /** @type {ConnState} */
    this.state = 'idle';
  }

  /** Start connecting (and keep reconnecting until `stop`). */
  start() {
    this.active = true;
    this.connect();
  }

  /** Close the socket for good; no reconnect. */
  stop() {
    this.active = false;
    this.clearTimers();
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close(1000, 'panel closed');
    this.setState('idle', '');
  }

  /** Skip the remaining backoff and try now (no-op while open or connecting). */
  retryNow() {
    if (!this.active || this.ws) return;
    this.clearTimers();
    this.connect();
  }

  /** Forget earlier failures (called once the daemon says the browser started). */
  resetBackoff() {
    this.attempt = 0;
  }

  get isOpen() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  /**
   * Send one JSON message. Returns false when the socket is not open (the message is dropped:
   * everything the panel sends is either re-sent on reconnect or a user action worth losing).
   * @param {object} msg
   */
  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** @private */
  connect() {
    this.clearTimers();
    this.setState('connecting', 'connecting…');
    /** @type {WebSocket} */
    let ws;
    try {
      ws = new WebSocket(this.opts.url, this.opts.protocols);
    } catch (err) {
      // A malformed URL or a token that is not a valid subprotocol token: retrying won't help
      // until the fragment changes, but keep the same loop so the state is visible.
      this.scheduleReconnect(`cannot open WebSocket: ${errorText(err)}`);
      return;
    }
    ws.binaryType = 'arraybuffer';
    this.ws = ws;

    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.openedAt = Date.now();
      this.setState('open', 'connected');
      this.opts.onOpen();
    };

    ws.onmessage = (ev) => {
      if (ws !== this.ws) return;
      if (typeof ev.data === 'string') {
        let msg;
        try {
          msg = JSON.parse(ev.data);
        } catch {
          console.warn('porthole: ignoring a text message that is not JSON', ev.data);
          return;
        }
        if (msg && typeof msg.type === 'string') this.opts.onMessage(msg);
      } else if (ev.data instanceof ArrayBuffer) {
        this.opts.onFrame(ev.data);
      }
    };

    ws.onclose = (ev) => {
      if (ws !== this.ws) return;
      this.ws = null;
      const wasOpen = this.openedAt > 0;
      if (wasOpen && Date.now() - this.openedAt >= STABLE_MS) this.attempt = 0;
      this.openedAt = 0;
      if (!this.active) return;
      this.scheduleReconnect(closeText(ev, wasOpen));
    };

    // An error is always followed by a close event; the close handler does the work.
    ws.onerror = () => {};
  }

  /**
   * @private
   * @param {string} why
   */
  scheduleReconnect(why) {
    const delay = Math.min(MIN_DELAY_MS * 2 ** this.attempt, MAX_DELAY_MS);
    this.attempt += 1;
    const due = Date.now() + delay;
    const show = () => {
      const secs = Math.max(1, Math.ceil((due - Date.now()) / 1000));
      this.setState('waiting', `${why} — reconnecting in ${secs}s`);
    };
    show();
    this.countdownTimer = setInterval(show, 1000);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  /** @private */
  clearTimers() {
    clearTimeout(this.retryTimer);
    clearInterval(this.countdownTimer);
    this.retryTimer = undefined;
    this.countdownTimer = undefined;
  }

  /**
   * @private
   * @param {ConnState} state
   * @param {string} detail
   */
  setState(state, detail) {
    this.state = state;
    this.opts.onState(state, detail);
  }
}

/**
 * @param {CloseEvent} ev
 * @param {boolean} wasOpen
 */
function closeText(ev, wasOpen) {
  if (!wasOpen) return 'cannot connect (daemon down or token refused)';
  const reason = ev.reason ? `: ${ev.reason}` : '';
  if (ev.code === 1000 || ev.code === 1001) return `disconnected${reason}`;
  if (ev.code === 1006) return 'connection lost';
  return `disconnected (${ev.code})${reason}`;
}

/** @param {unknown} err */
function errorText(err) {
  return err instanceof Error ? err.message : String(err);
}
