// @ts-check
/**
 * mode.js — the pane's mode pill. Shows the channel's mode (from `started`) and flips it
 * between Host (the user's own Chrome) and the daemon's default mode (docker or local): it
 * POSTs /api/browser/mode, then asks for a `start` in the new mode. When host is unavailable
 * the daemon says why; the pill shows it in the status line and the pane stays in its
 * previous mode. Owns nothing else: sending and showing are delegated.
 */

/**
 * @typedef {Object} ModePillOptions
 * @property {HTMLButtonElement} button
 * @property {() => {token: string, channel: string} | null} session   the open session, if any
 * @property {() => string} api   the daemon's base URL (`''`: the page's own origin)
 * @property {(mode: string) => void} restart   send `start` (and `screencast`) in this mode
 * @property {(text: string, kind: 'info' | 'error' | 'progress') => void} notify
 */

const LABELS = /** @type {Record<string, string>} */ ({ host: 'Host', docker: 'Docker', local: 'Local' });

export class ModePill {
  /** @param {ModePillOptions} opts */
  constructor(opts) {
    this.opts = opts;
    /** @type {string | null} the mode the pane is in (last `started`) */
    this.mode = null;
    /** @type {string | null} the daemon's non-host mode (from /api/health) */
    this.other = null;
    /** @type {{from: string, to: string} | null} a switch waiting for `started` */
    this.pending = null;
    opts.button.addEventListener('click', () => void this.toggle());
    void this.loadDefault();
  }

  async loadDefault() {
    try {
      const res = await fetch(`${this.opts.api()}/api/health`, { cache: 'no-store' });
      const health = await res.json();
      const fallback = health.docker ? 'docker' : 'local';
      this.other = health.default_mode && health.default_mode !== 'host' ? health.default_mode : fallback;
    } catch {
      this.other = 'local';
    }
    this.render();
  }

  /** The target of a click: host, or back to the default mode. */
  target() {
    if (!this.mode || !this.other) return null;
    return this.mode === 'host' ? this.other : 'host';
  }

  render() {
    const b = this.opts.button;
    const target = this.target();
    b.hidden = !this.mode;
    b.textContent = this.mode ? (LABELS[this.mode] || this.mode) : '';
    b.dataset.mode = this.mode || '';
    b.disabled = !!this.pending || !target;
    b.title = this.pending
      ? `Switching to ${LABELS[this.pending.to] || this.pending.to}…`
      : target ? `Switch this channel to ${LABELS[target] || target} mode` : '';
  }

  /** @param {string | null} mode  from `started` (null: no session) */
  started(mode) {
    this.mode = mode;
    if (this.pending && this.pending.to === mode) this.pending = null;
    this.render();
  }

  reset() {
    this.mode = null;
    this.pending = null;
    this.render();
  }

  /**
   * An `error` arrived. During a switch it means the new mode did not start: the daemon kept
   * the pane where it was; put the channel's mode back too. True when it was ours.
   * @param {{code: string, message: string}} error
   */
  failed(error) {
    const pending = this.pending;
    if (!pending) return false;
    this.pending = null;
    this.render();
    this.opts.notify(`Could not switch to ${LABELS[pending.to] || pending.to}: ${error.message || error.code}`, 'error');
    void this.post(pending.from);
    return true;
  }

  async toggle() {
    const target = this.target();
    if (!target || this.pending || !this.mode) return;
    const from = this.mode;
    this.pending = { from, to: target };
    this.render();
    this.opts.notify(`Switching to ${LABELS[target] || target}…`, 'progress');
    const error = await this.post(target);
    if (error) {
      this.pending = null;
      this.render();
      this.opts.notify(`Could not switch to ${LABELS[target] || target}: ${error}`, 'error');
      return;
    }
    this.opts.restart(target);
  }

  /**
   * POST /api/browser/mode; resolves to an error message, or null on success.
   * @param {string} mode
   * @returns {Promise<string | null>}
   */
  async post(mode) {
    const s = this.opts.session();
    if (!s) return 'not connected';
    try {
      const res = await fetch(`${this.opts.api()}/api/browser/mode`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ channel_id: s.channel, mode }),
      });
      if (res.ok) return null;
      const body = await res.json().catch(() => null);
      return (body && body.error && body.error.message) || `HTTP ${res.status}`;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }
}
