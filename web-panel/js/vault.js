// @ts-check
/**
 * vault.js — the person's side of the vault (DESIGN.md §19): the toolbar's key button opens a
 * panel over the view listing the vault's sources (locked, unlocked or unreadable; a locked
 * one has an Unlock form → `POST /api/browser/vault/{source}/unlock`), the items of unlocked
 * sources with whom each is shared, a share editor per item (which of the channel's agents may
 * use it → `PUT /api/browser/vault/shares`), and "Fill into this tab" (`vault_fill` on the
 * pane's socket, answered by `vault_result`). `vault_locked` opens the panel at that source's
 * unlock form.
 *
 * The unlock password lives only in its input: cleared as soon as it is sent, never kept in a
 * variable past the request, never in storage. Nothing here ever sees an item's password.
 */

/**
 * @typedef {{name: string, kind: string, state: string, reason?: string}} Source
 * @typedef {{item: string, title: string, username: string, origins: string[], has_totp: boolean}} Item
 * @typedef {{item: string, agents: string[], origins?: string[]}} Share
 * @typedef {{agent_id: string, name: string, channel_id: string}} Agent
 */

/**
 * @typedef {Object} VaultOptions
 * @property {HTMLButtonElement} button   the toolbar's key button
 * @property {HTMLElement} stage          the view's container (the panel goes over it)
 * @property {() => {api: string, token: string, channel: string} | null} session
 * @property {() => string | null} watched  the tab the pane shows
 * @property {(msg: object) => boolean} send
 * @property {(text: string, kind: 'info' | 'error' | 'progress') => void} notify
 * @property {() => void} onChange   anything shown changed (test hooks)
 */

export class VaultPanel {
  /** @param {VaultOptions} opts */
  constructor(opts) {
    this.opts = opts;
    /** @type {Source[]} */
    this.sources = [];
    /** @type {Item[]} */
    this.items = [];
    /** @type {Share[]} */
    this.shares = [];
    /** @type {Agent[]} the channel's agents */
    this.agents = [];
    /** @type {{text: string, error: boolean} | null} the last outcome shown */
    this.note = null;
    /** @type {{item: string, ok: boolean, message: string} | null} */
    this.lastResult = null;
    /** A source to unlock first (after `vault_locked`). @type {string | null} */
    this.wanted = null;
    const doc = opts.stage.ownerDocument;
    this.doc = doc;
    this.panel = this.el('section', { id: 'vault', class: 'vault', role: 'dialog', 'aria-labelledby': 'vault-title' });
    this.panel.hidden = true;
    const head = this.el('div', { class: 'vault-head' });
    const title = this.el('strong', { id: 'vault-title' }, 'Vault');
    const close = this.el('button', { id: 'vault-close', class: 'icon-btn', type: 'button', title: 'Close', 'aria-label': 'Close' }, '×');
    head.append(title, close);
    this.status = this.el('p', { id: 'vault-status', class: 'vault-status', role: 'status' });
    this.sourceList = this.el('ul', { id: 'vault-sources', class: 'vault-list' });
    this.itemList = this.el('ul', { id: 'vault-items', class: 'vault-list' });
    const itemsTitle = this.el('strong', { class: 'vault-subtitle' }, 'Sign-ins');
    this.panel.append(head, this.status, this.sourceList, itemsTitle, this.itemList);
    opts.stage.append(this.panel);

    opts.button.addEventListener('click', () => (this.panel.hidden ? void this.open() : this.close()));
    close.addEventListener('click', () => this.close());
    this.panel.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        this.close();
      }
    });
    this.render();
  }

  /**
   * @private
   * @param {string} tag
   * @param {Record<string, string>} [attrs]
   * @param {string} [text]
   * @returns {HTMLElement}
   */
  el(tag, attrs = {}, text) {
    const e = this.doc.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /** Opens the panel and loads what the vault holds. @param {string} [source] unlock this one first */
  async open(source) {
    if (source) this.wanted = source;
    this.panel.hidden = false;
    this.opts.button.classList.add('active');
    this.opts.button.setAttribute('aria-expanded', 'true');
    await this.reload();
  }

  close() {
    this.panel.hidden = true;
    this.wanted = null;
    this.opts.button.classList.remove('active');
    this.opts.button.setAttribute('aria-expanded', 'false');
    this.opts.onChange();
  }

  /** Forget everything (new session). */
  reset() {
    this.sources = [];
    this.items = [];
    this.shares = [];
    this.agents = [];
    this.note = null;
    this.lastResult = null;
    this.panel.hidden = true;
    this.render();
  }

  /** A fill met a locked source: open at its unlock form. @param {{source: string}} msg */
  locked(msg) {
    const source = String(msg.source ?? '');
    this.say(`Source ${source} is locked: unlock it, then fill again.`, true);
    void this.open(source);
  }

  /** The answer to a `vault_fill`. @param {{item: string, ok: boolean, message: string}} msg */
  result(msg) {
    this.lastResult = { item: String(msg.item ?? ''), ok: !!msg.ok, message: String(msg.message ?? '') };
    this.say(this.lastResult.message, !this.lastResult.ok);
    this.opts.notify(this.lastResult.message, this.lastResult.ok ? 'info' : 'error');
  }

  /** Plain data for tests. */
  snapshot() {
    return {
      open: !this.panel.hidden,
      sources: this.sources.map((s) => ({ ...s })),
      items: this.items.map((i) => i.item),
      shares: this.shares.map((s) => ({ ...s, agents: [...s.agents] })),
      agents: this.agents.map((a) => a.agent_id),
      note: this.note ? { ...this.note } : null,
      lastResult: this.lastResult ? { ...this.lastResult } : null,
    };
  }

  /**
   * Calls the vault API with the owner token; the JSON answer, or an Error with the daemon's
   * message.
   * @private
   * @param {string} method
   * @param {string} path
   * @param {object} [body]
   */
  async call(method, path, body) {
    const s = this.opts.session();
    if (!s) throw new Error('not connected');
    /** @type {RequestInit} */
    const init = { method, cache: 'no-store', headers: { Authorization: `Bearer ${s.token}` } };
    if (body !== undefined) {
      init.headers = { ...init.headers, 'Content-Type': 'application/json' };
      init.body = JSON.stringify(body);
    }
    const res = await fetch(`${s.api}${path}`, init);
    const answer = await res.json().catch(() => ({}));
    if (!res.ok) {
      const message = answer && answer.error ? answer.error.message || answer.error.code : `HTTP ${res.status}`;
      throw new Error(message);
    }
    return answer;
  }

  /** Reloads the sources, items, shares and the channel's agents. */
  async reload() {
    const s = this.opts.session();
    let read = true;
    try {
      const overview = await this.call('GET', '/api/browser/vault');
      this.sources = overview.sources || [];
      this.items = overview.items || [];
      this.shares = overview.shares || [];
      const agents = await this.call('GET', '/api/browser/agents');
      this.agents = (agents.agents || []).filter((/** @type {Agent} */ a) => s && a.channel_id === s.channel);
    } catch (e) {
      this.say(`The vault cannot be read: ${/** @type {Error} */ (e).message}`, true);
      read = false;
    }
    this.render();
    return read;
  }

  /**
   * @private
   * @param {string} text
   * @param {boolean} error
   */
  say(text, error) {
    this.note = text ? { text, error } : null;
    this.status.textContent = text;
    this.status.classList.toggle('error', error);
    this.opts.onChange();
  }

  /**
   * Sends the password typed for `source`; the input is cleared at once, whatever the answer,
   * and the answer is said once the panel is drawn again.
   * @private
   * @param {string} source
   * @param {HTMLInputElement} input
   */
  async unlock(source, input) {
    const body = { password: input.value };
    input.value = '';
    /** @type {[string, boolean]} */
    let outcome;
    try {
      await this.call('POST', `/api/browser/vault/${encodeURIComponent(source)}/unlock`, body);
      outcome = [`Unlocked ${source}.`, false];
      if (this.wanted === source) this.wanted = null;
    } catch (e) {
      outcome = [`${source} stays locked: ${/** @type {Error} */ (e).message}`, true];
    }
    body.password = '';
    // Said once the panel shows the new state: a person answering "wrong password" at once
    // types into the form as it is now, not one about to be drawn again.
    if (await this.reload()) this.say(...outcome);
  }

  /** @private @param {string} source */
  async lock(source) {
    try {
      await this.call('POST', `/api/browser/vault/${encodeURIComponent(source)}/lock`, {});
      this.say(`Locked ${source}.`, false);
    } catch (e) {
      this.say(/** @type {Error} */ (e).message, true);
    }
    await this.reload();
  }

  /**
   * Shares `item` with exactly `chosen` of this channel's agents (`*`: every agent); other
   * channels' agents and the share's origins stay as they were.
   * @private
   * @param {string} item
   * @param {Set<string>} chosen
   */
  async share(item, chosen) {
    const mine = new Set(this.agents.map((a) => a.agent_id).concat('*'));
    const old = this.shares.find((s) => s.item === item);
    const kept = old ? old.agents.filter((a) => !mine.has(a)) : [];
    const agents = [...kept, ...chosen];
    const others = this.shares.filter((s) => s.item !== item);
    /** @type {Share[]} */
    const shares = agents.length
      ? [...others, { item, agents, ...(old && old.origins && old.origins.length ? { origins: old.origins } : {}) }]
      : others;
    try {
      const answer = await this.call('PUT', '/api/browser/vault/shares', { shares });
      this.shares = answer.shares || shares;
      this.say(agents.length ? `Shared ${item} with ${this.names(agents)}.` : `${item} is shared with no agent.`, false);
    } catch (e) {
      this.say(`Sharing unchanged: ${/** @type {Error} */ (e).message}`, true);
    }
    this.render();
  }

  /** @private @param {string} item */
  fill(item) {
    const target = this.opts.watched();
    /** @type {Record<string, string>} */
    const msg = { type: 'vault_fill', item };
    if (target) msg.target_id = target;
    if (this.opts.send(msg)) this.say(`Filling ${item}…`, false);
    else this.say('Not connected: nothing was filled.', true);
  }

  /** @private @param {string[]} ids */
  names(ids) {
    return ids
      .map((id) => (id === '*' ? 'every agent' : (this.agents.find((a) => a.agent_id === id) || { name: id }).name))
      .join(', ');
  }

  /** @private */
  render() {
    this.sourceList.replaceChildren(...this.sources.map((s) => this.sourceRow(s)));
    if (!this.sources.length) {
      this.sourceList.append(this.el('li', { class: 'vault-empty' }, 'No vault sources are configured (vault.sources).'));
    }
    this.itemList.replaceChildren(...this.items.map((i) => this.itemRow(i)));
    if (!this.items.length) {
      this.itemList.append(this.el('li', { class: 'vault-empty' }, 'No sign-ins: unlock a source to see its items.'));
    }
    if (this.wanted && !this.panel.hidden) {
      const input = /** @type {HTMLInputElement | null} */ (
        this.sourceList.querySelector(`.vault-source[data-source="${CSS.escape(this.wanted)}"] input`));
      if (input) input.focus();
    }
    this.opts.onChange();
  }

  /** @private @param {Source} s */
  sourceRow(s) {
    const li = this.el('li', { class: 'vault-source', 'data-source': s.name, 'data-state': s.state });
    const label = this.el('span', { class: 'vault-name' }, `${s.name} (${s.kind})`);
    const state = this.el('span', { class: 'vault-state' }, s.state === 'error' ? `error: ${s.reason ?? ''}` : s.state);
    li.append(label, state);
    if (s.state === 'locked' && s.kind === 'keepass') {
      const form = /** @type {HTMLFormElement} */ (this.el('form', { class: 'vault-unlock' }));
      const input = /** @type {HTMLInputElement} */ (this.el('input', {
        type: 'password', class: 'vault-password', autocomplete: 'off', spellcheck: 'false',
        placeholder: 'Password', 'aria-label': `Password of ${s.name}`,
      }));
      const go = this.el('button', { class: 'btn small primary vault-unlock-btn', type: 'submit' }, 'Unlock');
      form.append(input, go);
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        void this.unlock(s.name, input);
      });
      li.append(form);
    } else if (s.state === 'unlocked' && s.kind === 'keepass') {
      const lock = this.el('button', { class: 'btn small vault-lock', type: 'button' }, 'Lock');
      lock.addEventListener('click', () => void this.lock(s.name));
      li.append(lock);
    }
    return li;
  }

  /** @private @param {Item} item */
  itemRow(item) {
    const li = this.el('li', { class: 'vault-item', 'data-item': item.item });
    const head = this.el('div', { class: 'vault-item-head' });
    head.append(
      this.el('strong', { class: 'vault-name' }, item.title || item.item),
      this.el('span', { class: 'vault-user' }, item.username ? ` ${item.username}` : ''),
    );
    const where = this.el('div', { class: 'vault-origins' }, `${item.item} · ${item.origins.join(', ') || 'no site'}${item.has_totp ? ' · one-time code' : ''}`);
    const share = this.shares.find((s) => s.item === item.item);
    const sharedWith = share ? share.agents : [];
    const shared = this.el('div', { class: 'vault-shared' },
      sharedWith.length ? `Shared with ${this.names(sharedWith)}` : 'Shared with no agent');
    const editor = this.el('div', { class: 'vault-share-editor' });
    /** @type {HTMLInputElement[]} */
    const boxes = [];
    const choices = [{ agent_id: '*', name: 'Every agent' }, ...this.agents];
    for (const a of choices) {
      const label = this.el('label', { class: 'vault-share-choice' });
      const box = /** @type {HTMLInputElement} */ (this.el('input', { type: 'checkbox', class: 'vault-share', 'data-agent': a.agent_id }));
      box.checked = sharedWith.includes(a.agent_id);
      box.addEventListener('change', () => {
        const chosen = new Set(boxes.filter((b) => b.checked).map((b) => String(b.dataset.agent)));
        void this.share(item.item, chosen);
      });
      boxes.push(box);
      label.append(box, this.doc.createTextNode(` ${a.name}`));
      editor.append(label);
    }
    const fill = this.el('button', { class: 'btn small primary vault-fill', type: 'button' }, 'Fill into this tab');
    fill.addEventListener('click', () => this.fill(item.item));
    li.append(head, where, shared, editor, fill);
    return li;
  }
}
