// @ts-check
/**
 * person-events.js — the panel page's ear on every channel (DESIGN.md §20a): it holds
 * `GET /api/events` (Server-Sent Events, the owner token in the Authorization header, so read
 * with `fetch` rather than `EventSource`, which cannot send one) and raises a browser
 * `Notification` when an agent waits for the person on a channel she is not looking at: an
 * `approval` or a `handoff` of another channel, or of this one while the page is hidden. The
 * notification names the agent, what it asks and the channel, never the detail (a script, a
 * body). It answers nothing: only a pane answers. Reconnects with a growing pause.
 */

/** What each approval kind asks, in words (as the card says it). */
const ASKS = /** @type {Record<string, string>} */ ({
  submit: 'wants to send data from a page',
  new_site: 'wants to open a new site',
  upload: 'wants to hand files to a page',
  download: 'wants to read a downloaded file',
  evaluate: 'wants to run a script in a page',
  login: 'wants to sign in with a saved login',
});

/** The longest pause between reconnects, in ms. */
const MAX_PAUSE_MS = 30_000;

/**
 * @typedef {Object} PersonEventsOptions
 * @property {() => string} token          the owner token (empty: not connected)
 * @property {() => string | null} onScreen the channel the person looks at now, if any
 */

export class PersonEvents {
  /** @param {PersonEventsOptions} opts */
  constructor(opts) {
    this.opts = opts;
    /** @type {AbortController | null} */
    this.running = null;
    this.pause = 1000;
    /** How many notifications were raised (for tests and the status). */
    this.raised = 0;
  }

  /** Starts (or restarts, on a new token) listening. */
  start() {
    this.stop();
    const token = this.opts.token();
    if (!token) return;
    const running = new AbortController();
    this.running = running;
    void this.listen(token, running.signal);
  }

  stop() {
    if (this.running) this.running.abort();
    this.running = null;
  }

  /** Asks for the permission to notify (needs a gesture in most browsers). */
  askPermission() {
    if (typeof Notification === 'undefined' || Notification.permission !== 'default') return;
    void Notification.requestPermission().catch(() => {});
  }

  /** @private @param {string} token @param {AbortSignal} signal */
  async listen(token, signal) {
    while (!signal.aborted) {
      try {
        const res = await fetch('/api/events', {
          headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' },
          cache: 'no-store',
          signal,
        });
        if (res.status === 401 || res.status === 403) return; // a wrong token stays wrong
        if (res.ok && res.body) {
          this.pause = 1000;
          await this.read(res.body, signal);
        }
      } catch {
        // Dropped, or the daemon is away: try again after a pause.
      }
      if (signal.aborted) return;
      await new Promise((done) => setTimeout(done, this.pause));
      this.pause = Math.min(this.pause * 2, MAX_PAUSE_MS);
    }
  }

  /** @private @param {ReadableStream<Uint8Array>} body @param {AbortSignal} signal */
  async read(body, signal) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!signal.aborted) {
      const { value, done } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true }).replace(/\r\n/g, '\n');
      let end;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        this.dispatch(block);
      }
    }
  }

  /** @private @param {string} block  one SSE event's lines */
  dispatch(block) {
    let name = 'message';
    const data = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) name = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (!data.length) return;
    let event;
    try {
      event = JSON.parse(data.join('\n'));
    } catch {
      return;
    }
    if (name === 'approval' || name === 'handoff') this.notifyPerson(name, event);
  }

  /** @private @param {string} name @param {any} event */
  notifyPerson(name, event) {
    const channel = String(event.channel_id ?? '');
    const seen = channel === this.opts.onScreen() && document.visibilityState === 'visible';
    if (seen) return;
    if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
    const who = String(event.name || event.agent_id || 'An agent');
    const what = name === 'approval'
      ? (ASKS[String(event.kind)] ?? `asks to do ${String(event.kind)}`)
      : 'asks for your help';
    try {
      new Notification(`${who} ${what}`, {
        body: `In channel ${channel}. Open it in Porthole to answer.`,
        tag: `porthole-${channel}-${String(event.id)}`,
      });
      this.raised += 1;
    } catch {
      // A page that may not notify (a service-worker-only browser): the pane still shows it.
    }
  }
}
