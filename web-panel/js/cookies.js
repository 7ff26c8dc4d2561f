// @ts-check
/**
 * cookies.js — the "Import cookies" dialog: lists the user's browser profiles
 * (GET /api/browser/cookies/sources), then one row per cookie scope folded under its parent
 * scope, busiest first, with a search box. Nothing is ticked at open; ticking a parent takes
 * every scope printed under it; expanding a parent picks its scopes one at a time; Select all /
 * Clear. Import (POST /api/browser/cookies/import) sends exactly the ticked scopes and shows
 * the counts. The last profile and selection are remembered in localStorage (names only).
 * Never sees a cookie value: the API never returns one.
 */

const STORE_KEY = 'porthole.cookieImport';

/**
 * @typedef {{scope: string, parent: string | null, count: number}} Scope
 * @typedef {{id: string, browser: string, profile: string, name: string, scopes: Scope[],
 *            error?: {code: string, message: string}}} Source
 * @typedef {{scope: string, count: number, total: number, children: Scope[]}} Group
 */

/**
 * Folds scopes under their top-level parent scope (a chain a → b → c folds under c), groups
 * busiest first by their total count; children keep the API's busiest-first order.
 * @param {Scope[]} scopes
 * @returns {Group[]}
 */
export function foldScopes(scopes) {
  const byName = new Map(scopes.map((s) => [s.scope, s]));
  /** @param {Scope} s */
  const root = (s) => {
    let cur = s;
    const seen = new Set([cur.scope]);
    while (cur.parent && byName.has(cur.parent) && !seen.has(cur.parent)) {
      cur = /** @type {Scope} */ (byName.get(cur.parent));
      seen.add(cur.scope);
    }
    return cur;
  };
  /** @type {Map<string, Group>} */
  const groups = new Map();
  for (const s of scopes) {
    const r = root(s);
    let g = groups.get(r.scope);
    if (!g) {
      g = { scope: r.scope, count: r.count, total: 0, children: [] };
      groups.set(r.scope, g);
    }
    g.total += s.count;
    if (s !== r) g.children.push(s);
  }
  return [...groups.values()].sort((a, b) => b.total - a.total || a.scope.localeCompare(b.scope));
}

/** @returns {{source?: string, selected?: Record<string, string[]>}} */
function loadRemembered() {
  try {
    return JSON.parse(localStorage.getItem(STORE_KEY) || '{}') || {};
  } catch {
    return {};
  }
}

/** @param {{source?: string, selected?: Record<string, string[]>}} value */
function saveRemembered(value) {
  try {
    localStorage.setItem(STORE_KEY, JSON.stringify(value));
  } catch {
    // Private mode or storage full: remembering is a convenience.
  }
}

export class CookieDialog {
  /**
   * @param {{getToken: () => string, getChannel: () => string | null,
   *          notify: (text: string, kind: string) => void}} opts
   */
  constructor(opts) {
    this.opts = opts;
    /** @type {Source[]} */
    this.sources = [];
    /** @type {Source | null} */
    this.source = null;
    /** @type {Set<string>} */
    this.ticked = new Set();
    /** @type {Set<string>} */
    this.expanded = new Set();
    this.filter = '';
    /** @type {{imported: number, skipped_session: number, skipped_expired: number} | null} */
    this.lastResult = null;
    this.build();
  }

  build() {
    const root = document.createElement('section');
    root.className = 'cookie-dialog';
    root.hidden = true;
    root.innerHTML = `
      <div class="cookie-card" role="dialog" aria-label="Import cookies">
        <h1>Import cookies</h1>
        <p class="cookie-note">Only the scopes you tick are copied into this channel's browser.
          Values never leave this computer and are never stored by Porthole.</p>
        <label class="field"><span>Browser profile</span><select class="cookie-source"></select></label>
        <input class="cookie-search" type="search" placeholder="Search scopes" aria-label="Search scopes" spellcheck="false">
        <div class="cookie-bulk">
          <button class="btn cookie-all" type="button">Select all</button>
          <button class="btn cookie-clear" type="button">Clear</button>
          <span class="cookie-count"></span>
        </div>
        <ul class="cookie-scopes"></ul>
        <p class="cookie-message" role="status"></p>
        <div class="picker-actions">
          <button class="btn cookie-close" type="button">Close</button>
          <button class="btn primary cookie-import" type="button">Import</button>
        </div>
      </div>`;
    document.body.append(root);
    this.root = root;
    const q = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (root.querySelector(sel));
    this.sourceSelect = /** @type {HTMLSelectElement} */ (q('.cookie-source'));
    this.search = /** @type {HTMLInputElement} */ (q('.cookie-search'));
    this.list = q('.cookie-scopes');
    this.message = q('.cookie-message');
    this.countEl = q('.cookie-count');
    this.importBtn = /** @type {HTMLButtonElement} */ (q('.cookie-import'));
    this.sourceSelect.addEventListener('change', () => this.pickSource(this.sourceSelect.value, false));
    this.search.addEventListener('input', () => { this.filter = this.search.value.trim().toLowerCase(); this.render(); });
    q('.cookie-all').addEventListener('click', () => this.selectAll());
    q('.cookie-clear').addEventListener('click', () => { this.ticked.clear(); this.render(); });
    q('.cookie-close').addEventListener('click', () => this.close());
    this.importBtn.addEventListener('click', () => void this.doImport());
    root.addEventListener('keydown', (e) => { if (e.key === 'Escape') this.close(); });
  }

  /** @param {string} text @param {boolean} [error] */
  say(text, error = false) {
    this.message.textContent = text;
    this.message.classList.toggle('error', error);
  }

  /** @param {string} path @param {RequestInit} [init] */
  async api(path, init = {}) {
    const res = await fetch(path, {
      ...init,
      cache: 'no-store',
      headers: { Authorization: `Bearer ${this.opts.getToken()}`, 'Content-Type': 'application/json' },
    });
    const body = await res.json().catch(() => null);
    if (!res.ok) {
      const err = body && body.error;
      throw new Error(err ? `${err.message} (${err.code})` : `HTTP ${res.status}`);
    }
    return body;
  }

  /** Opens the dialog and lists the profiles. Nothing is ticked at open. */
  async open() {
    this.root.hidden = false;
    this.ticked.clear();
    this.expanded.clear();
    this.filter = '';
    this.search.value = '';
    this.lastResult = null;
    this.list.replaceChildren();
    this.sourceSelect.replaceChildren();
    this.say('Looking for browser profiles…');
    const channel = this.opts.getChannel();
    try {
      const q = channel ? `?channel_id=${encodeURIComponent(channel)}` : '';
      const body = await this.api(`/api/browser/cookies/sources${q}`);
      this.sources = Array.isArray(body.sources) ? body.sources : [];
    } catch (err) {
      this.sources = [];
      this.say(`Could not list browser profiles: ${err instanceof Error ? err.message : String(err)}`, true);
      this.render();
      return;
    }
    if (!this.sources.length) {
      this.say('No browser profiles found on this computer.', true);
      this.render();
      return;
    }
    for (const s of this.sources) {
      const opt = document.createElement('option');
      opt.value = s.id;
      opt.textContent = `${s.name} (${s.id})${s.error ? ' — unreadable' : ''}`;
      this.sourceSelect.append(opt);
    }
    const remembered = loadRemembered();
    const first = this.sources.find((s) => s.id === remembered.source) || this.sources[0];
    this.pickSource(first.id, true);
    this.search.focus();
  }

  close() {
    this.root.hidden = true;
  }

  /**
   * @param {string} id
   * @param {boolean} restore  restore the remembered selection of this profile
   */
  pickSource(id, restore) {
    this.source = this.sources.find((s) => s.id === id) || null;
    this.sourceSelect.value = id;
    this.ticked.clear();
    this.expanded.clear();
    if (this.source && restore) {
      const present = new Set(this.source.scopes.map((s) => s.scope));
      const remembered = loadRemembered().selected?.[id] || [];
      for (const s of remembered) if (present.has(s)) this.ticked.add(s);
    }
    if (this.source && this.source.error) this.say(this.source.error.message, true);
    else this.say(this.source ? `${this.source.scopes.length} scopes. Tick the sites to import.` : '');
    this.render();
  }

  /** Every scope, with nothing excluded. */
  selectAll() {
    if (!this.source) return;
    for (const s of this.source.scopes) this.ticked.add(s.scope);
    this.render();
  }

  /** @param {Group} g @returns {string[]} */
  groupScopes(g) {
    return [g.scope, ...g.children.map((c) => c.scope)];
  }

  /** @param {Group} g */
  matches(g) {
    if (!this.filter) return true;
    return this.groupScopes(g).some((s) => s.toLowerCase().includes(this.filter));
  }

  render() {
    this.list.replaceChildren();
    const groups = this.source ? foldScopes(this.source.scopes) : [];
    for (const g of groups.filter((x) => this.matches(x))) {
      const all = this.groupScopes(g);
      const n = all.filter((s) => this.ticked.has(s)).length;
      const li = document.createElement('li');
      li.className = 'cookie-group';
      const row = this.row(g.scope, g.total, n === all.length, n > 0 && n < all.length, (on) => {
        for (const s of all) on ? this.ticked.add(s) : this.ticked.delete(s);
        this.render();
      });
      if (g.children.length) {
        const toggle = document.createElement('button');
        toggle.type = 'button';
        toggle.className = 'cookie-expand';
        const open = this.expanded.has(g.scope) || !!this.filter;
        toggle.textContent = open ? '▾' : `▸ ${g.children.length}`;
        toggle.title = open ? 'Fold' : 'Pick scopes one at a time';
        toggle.addEventListener('click', () => {
          this.expanded.has(g.scope) ? this.expanded.delete(g.scope) : this.expanded.add(g.scope);
          this.render();
        });
        row.append(toggle);
        li.append(row);
        if (open) {
          const sub = document.createElement('ul');
          sub.className = 'cookie-children';
          // The parent scope itself is a row of its own once expanded.
          for (const s of [{ scope: g.scope, count: g.count }, ...g.children]) {
            const item = document.createElement('li');
            item.append(this.row(s.scope, s.count, this.ticked.has(s.scope), false, (on) => {
              on ? this.ticked.add(s.scope) : this.ticked.delete(s.scope);
              this.render();
            }));
            sub.append(item);
          }
          li.append(sub);
        }
      } else {
        li.append(row);
      }
      this.list.append(li);
    }
    const total = this.source ? this.source.scopes.length : 0;
    this.countEl.textContent = `${this.ticked.size} of ${total} ticked`;
    this.importBtn.disabled = this.ticked.size === 0 || !this.opts.getChannel();
  }

  /**
   * @param {string} scope
   * @param {number} count
   * @param {boolean} checked
   * @param {boolean} mixed
   * @param {(on: boolean) => void} onChange
   */
  row(scope, count, checked, mixed, onChange) {
    const label = document.createElement('label');
    label.className = 'cookie-row';
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = checked;
    box.indeterminate = mixed;
    box.dataset.scope = scope;
    box.addEventListener('change', () => onChange(box.checked));
    const name = document.createElement('span');
    name.className = 'name';
    name.textContent = scope;
    const meta = document.createElement('span');
    meta.className = 'meta';
    meta.textContent = `${count}`;
    label.append(box, name, meta);
    return label;
  }

  /** Sends exactly the ticked scopes. */
  async doImport() {
    const channel = this.opts.getChannel();
    if (!this.source || !channel || !this.ticked.size) return;
    const domains = [...this.ticked];
    const source = this.source.id;
    const remembered = loadRemembered();
    saveRemembered({ source, selected: { ...(remembered.selected || {}), [source]: domains } });
    this.importBtn.disabled = true;
    this.say(`Importing ${domains.length} scopes from ${source}…`);
    try {
      const r = await this.api('/api/browser/cookies/import', {
        method: 'POST',
        body: JSON.stringify({ channel_id: channel, source, domains }),
      });
      this.lastResult = r;
      const text = `Imported ${r.imported} cookies; skipped ${r.skipped_session} session and ${r.skipped_expired} expired.`;
      this.say(text);
      this.opts.notify(text, 'info');
    } catch (err) {
      this.say(`Import failed: ${err instanceof Error ? err.message : String(err)}`, true);
    } finally {
      this.importBtn.disabled = false;
    }
  }
}
