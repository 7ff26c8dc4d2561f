// @ts-check
/**
 * toolbar.js — owns the navigation toolbar (back / forward / reload, the URL bar and what it
 * shows) and the status line at the bottom (connection state, channel, mode, and the latest
 * progress / error / notice). Sending is delegated; this module only turns clicks and Enter
 * into messages and keeps the text on screen current.
 */

/**
 * What the user typed → what to navigate to. An explicit scheme is kept; something that looks
 * like a host (a dot and no spaces, or localhost / an IP) gets `https://` (`http://` for
 * localhost and IP addresses, which rarely serve TLS); anything else — words with spaces, a
 * single word — is sent as typed and the daemon reports it if it is not a URL.
 * @param {string} input
 * @returns {string | null}
 */
export function normalizeUrl(input) {
  const s = input.trim();
  if (!s) return null;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) return s;
  if (/^(about|data|javascript|mailto|file|chrome|view-source|blob):/i.test(s)) return s;
  if (/\s/.test(s)) return s;
  const m = /^([^/?#:]+|\[[0-9a-f:.]+\])(:\d{1,5})?([/?#].*)?$/i.exec(s);
  if (!m) return s;
  const host = m[1];
  if (/^localhost$/i.test(host) || /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith('[')) {
    return `http://${s}`;
  }
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z][a-z0-9-]*$/i.test(host)) return `https://${s}`;
  return s;
}

/**
 * @typedef {Object} ToolbarOptions
 * @property {HTMLInputElement} url
 * @property {HTMLButtonElement} back
 * @property {HTMLButtonElement} forward
 * @property {HTMLButtonElement} reload
 * @property {(msg: object) => void} send
 * @property {() => void} onDone    the URL bar is finished with (Enter / Escape): focus the screen
 */

export class Toolbar {
  /** @param {ToolbarOptions} opts */
  constructor(opts) {
    this.opts = opts;
    this.pageUrl = '';
    const { url, back, forward, reload, send } = opts;

    back.addEventListener('click', () => send({ type: 'back' }));
    forward.addEventListener('click', () => send({ type: 'forward' }));
    reload.addEventListener('click', () => send({ type: 'reload' }));

    url.addEventListener('focus', () => url.select());
    url.addEventListener('blur', () => { url.value = this.pageUrl; });
    url.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.isComposing) {
        e.preventDefault();
        const target = normalizeUrl(url.value);
        if (!target) return;
        send({ type: 'navigate', url: target });
        url.value = target;
        opts.onDone();
      } else if (e.key === 'Escape') {
        e.preventDefault();
        url.value = this.pageUrl;
        opts.onDone();
      }
    });
  }

  /**
   * The active tab's URL (from `page_info` / tab changes). Not applied while the user is typing.
   * @param {string} pageUrl
   */
  setUrl(pageUrl) {
    this.pageUrl = pageUrl || '';
    if (activeIn(this.opts.url) !== this.opts.url) this.opts.url.value = this.pageUrl;
  }

  /** @param {boolean} enabled */
  setEnabled(enabled) {
    for (const b of [this.opts.back, this.opts.forward, this.opts.reload]) b.disabled = !enabled;
  }
}

/**
 * The focused element of the document or shadow root `el` lives in.
 * @param {Node} el
 * @returns {Element | null}
 */
export function activeIn(el) {
  const root = /** @type {Document | ShadowRoot} */ (el.getRootNode());
  return root.activeElement || null;
}

/** @typedef {'info' | 'progress' | 'error'} MessageKind */

/**
 * @typedef {Object} StatusLineOptions
 * @property {HTMLButtonElement} conn     connection state (click: retry now)
 * @property {HTMLButtonElement} channel  channel id (click: switch channel)
 * @property {HTMLElement} mode
 * @property {HTMLElement} message        latest progress / error / notice (click: dismiss)
 * @property {() => void} onRetry
 * @property {() => void} onPickChannel
 */

export class StatusLine {
  /** @param {StatusLineOptions} opts */
  constructor(opts) {
    this.opts = opts;
    /** @type {MessageKind | null} */
    this.kind = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.infoTimer = undefined;
    opts.conn.addEventListener('click', () => opts.onRetry());
    opts.channel.addEventListener('click', () => opts.onPickChannel());
    opts.message.addEventListener('click', () => this.clear());
  }

  /**
   * @param {string} state   'idle' | 'connecting' | 'open' | 'waiting'
   * @param {string} text
   */
  setConnection(state, text) {
    this.opts.conn.dataset.state = state;
    this.opts.conn.textContent = text || state;
    this.opts.conn.title = state === 'waiting' ? 'Click to reconnect now' : '';
  }

  /** @param {string | null} channelId */
  setChannel(channelId) {
    this.opts.channel.textContent = channelId ? `channel ${channelId}` : 'no channel';
  }

  /** @param {string | null} mode */
  setMode(mode) {
    this.opts.mode.textContent = mode ? `mode ${mode}` : '';
  }

  /**
   * Show a message. Notices (`info`) fade after a few seconds; progress and errors stay until
   * replaced or clicked away.
   * @param {string} text
   * @param {MessageKind} kind
   */
  show(text, kind) {
    clearTimeout(this.infoTimer);
    const el = this.opts.message;
    el.textContent = text;
    el.title = text ? `${text}\n(click to dismiss)` : '';
    el.className = `status-message ${kind}`;
    this.kind = kind;
    if (kind === 'info') this.infoTimer = setTimeout(() => this.clear(), 4000);
  }

  /** @param {MessageKind} [onlyKind] clear only if the current message is of this kind */
  clear(onlyKind) {
    if (onlyKind && this.kind !== onlyKind) return;
    clearTimeout(this.infoTimer);
    this.opts.message.textContent = '';
    this.opts.message.title = '';
    this.opts.message.className = 'status-message';
    this.kind = null;
  }
}
