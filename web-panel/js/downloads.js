// @ts-check
/**
 * downloads.js — the person's downloads in <porthole-pane>: a small list in the stage's
 * corner fed by `download` messages (started, progress, completed, canceled, failed). A
 * completed one offers "Save": the bytes are fetched from
 * `GET /api/browser/channels/{channel}/downloads/{id}` with the owner token (a header, never
 * the URL), turned into a blob URL and saved through an `<a download>` click. Owns only its
 * own box; porthole-pane.js feeds it messages and says where the session is.
 */

/**
 * @typedef {Object} DownloadItem
 * @property {string} id
 * @property {string} name
 * @property {string} state       started | progress | completed | canceled | failed
 * @property {number} received
 * @property {number | null} total
 * @property {boolean} saved      the person saved it at least once
 */

/** How long a finished entry stays when nobody saves it. */
const KEEP_FINISHED_MS = 5 * 60 * 1000;
const MAX_ITEMS = 5;

/** @param {number} n */
function size(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

export class DownloadList {
  /**
   * @param {HTMLElement} host  where the box goes (the pane's stage)
   * @param {() => ({api: string, token: string, channel: string} | null)} session
   */
  constructor(host, session) {
    this.session = session;
    /** @type {Map<string, DownloadItem>} */
    this.items = new Map();
    /** @type {Map<string, ReturnType<typeof setTimeout>>} */
    this.timers = new Map();
    this.box = document.createElement('div');
    this.box.className = 'downloads';
    this.box.setAttribute('role', 'status');
    this.box.setAttribute('aria-label', 'Downloads');
    this.box.style.cssText =
      'position:absolute;right:8px;bottom:8px;z-index:5;max-width:320px;display:none;' +
      'background:rgba(32,33,36,.92);color:#fff;font:12px system-ui,sans-serif;border-radius:6px;' +
      'padding:4px 8px;box-shadow:0 2px 8px rgba(0,0,0,.3)';
    host.appendChild(this.box);
  }

  /** Plain data for tests. */
  snapshot() {
    return [...this.items.values()].map((d) => ({ ...d }));
  }

  /**
   * A `download` message.
   * @param {{id: string, name: string, state: string, received_bytes: number, total_bytes?: number}} msg
   */
  update(msg) {
    const id = String(msg.id);
    const old = this.items.get(id);
    this.items.set(id, {
      id,
      name: String(msg.name || 'download'),
      state: String(msg.state),
      received: Number(msg.received_bytes) || 0,
      total: msg.total_bytes == null ? null : Number(msg.total_bytes),
      saved: old ? old.saved : false,
    });
    while (this.items.size > MAX_ITEMS) {
      const oldest = this.items.keys().next().value;
      if (oldest === undefined) break;
      this.forget(oldest);
    }
    if (['completed', 'canceled', 'failed'].includes(String(msg.state))) {
      clearTimeout(this.timers.get(id));
      this.timers.set(id, setTimeout(() => this.forget(id), KEEP_FINISHED_MS));
    }
    this.render();
  }

  /** Forget everything (a new session). */
  clear() {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.items.clear();
    this.render();
  }

  /**
   * Fetches a completed download's bytes with the token and saves them as its name.
   * @param {string} id
   * @returns {Promise<boolean>}
   */
  async save(id) {
    const item = this.items.get(id);
    const s = this.session();
    if (!item || !s) return false;
    const url = `${s.api}/api/browser/channels/${encodeURIComponent(s.channel)}/downloads/${encodeURIComponent(id)}`;
    try {
      const res = await fetch(url, { headers: { Authorization: `Bearer ${s.token}` }, cache: 'no-store' });
      if (!res.ok) {
        let message = `HTTP ${res.status}`;
        try {
          message = (await res.json()).error.message || message;
        } catch (_) {
          /* not JSON */
        }
        this.fail(item, message);
        return false;
      }
      const blob = await res.blob();
      const href = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = href;
      a.download = item.name;
      a.style.display = 'none';
      this.box.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(href), 60_000);
      item.saved = true;
      this.render();
      return true;
    } catch (e) {
      this.fail(item, String(e));
      return false;
    }
  }

  /** @private @param {DownloadItem} item @param {string} message */
  fail(item, message) {
    item.state = 'failed';
    this.render();
    this.box.title = `${item.name}: ${message}`;
  }

  /** @private @param {string} id */
  forget(id) {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    this.items.delete(id);
    this.render();
  }

  /** @private */
  render() {
    this.box.replaceChildren();
    this.box.style.display = this.items.size ? 'block' : 'none';
    for (const d of this.items.values()) {
      const row = document.createElement('div');
      row.className = 'download';
      row.dataset.id = d.id;
      row.dataset.state = d.state;
      row.style.cssText = 'display:flex;gap:8px;align-items:center;padding:3px 0';
      const name = document.createElement('span');
      name.textContent = d.name;
      name.style.cssText = 'flex:1;overflow:hidden;text-overflow:ellipsis;white-space:nowrap';
      const what = document.createElement('span');
      what.style.opacity = '.75';
      if (d.state === 'started' || d.state === 'progress') {
        what.textContent = d.total ? `${Math.floor((100 * d.received) / d.total)}%` : size(d.received);
      } else if (d.state === 'completed') {
        what.textContent = size(d.received);
      } else {
        what.textContent = d.state;
      }
      row.append(name, what);
      if (d.state === 'completed') {
        const save = document.createElement('a');
        save.href = '#';
        save.className = 'download-save';
        save.textContent = d.saved ? 'Save again' : 'Save';
        save.style.cssText = 'color:#8ab4f8;cursor:pointer';
        save.addEventListener('click', (e) => {
          e.preventDefault();
          void this.save(d.id);
        });
        row.append(save);
      }
      const close = document.createElement('button');
      close.type = 'button';
      close.textContent = '×';
      close.title = 'Dismiss';
      close.setAttribute('aria-label', `Dismiss ${d.name}`);
      close.style.cssText = 'background:none;border:0;color:inherit;cursor:pointer;font-size:14px';
      close.addEventListener('click', () => this.forget(d.id));
      row.append(close);
      this.box.append(row);
    }
  }
}
