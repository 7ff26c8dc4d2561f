// @ts-check
/**
 * approvals.js — the person's approval of an agent's act (DESIGN.md §20, §20a): `approval` …
 * `approval_closed` shows a card over the view naming the agent, the kind, the tab (by its
 * title) and its page, the whole detail (the method and URL; the script, scrollable; the file
 * names; the item) and a POST's body when the daemon sends one, with Allow, Decline and
 * "Always on this site" → `approval_answer {id, allow, remember}`. Several may wait at once:
 * the oldest is shown.
 *
 * No approval by accident: the card never takes keyboard focus (the person's next Enter or
 * Space goes where she was typing, never to Allow; a button clicked does not keep focus either),
 * and each card ignores clicks and keys for its first {@link ARMING_MS} ms, so a click or key
 * meant for the page — or a card a page raised under her pointer — answers nothing. Escape
 * declines only when she moved focus into the card herself. Only a pane answers approvals.
 */

/**
 * @typedef {{id: string, agent_id: string, name: string, kind: string, target_id: string,
 *   url: string, detail: string, body: string | null, body_size: number | null}} Approval
 */

/** How long a card shown ignores clicks and keys, in ms. */
export const ARMING_MS = 500;

/** Most of a POST body the card shows, in characters (the daemon cuts at 4 KB too). */
const BODY_SHOWN = 4096;

/** What each kind asks, in words. */
const ASKS = /** @type {Record<string, string>} */ ({
  submit: 'wants to send data from the page',
  new_site: 'wants to open a new site',
  upload: 'wants to hand files to the page',
  download: 'wants to read a downloaded file',
  evaluate: 'wants to run a script in the page',
  login: 'wants to sign in with a saved login',
});

/**
 * @typedef {Object} ApprovalOptions
 * @property {HTMLElement} stage   the view's container (the card goes over it)
 * @property {(msg: object) => boolean} send
 * @property {(targetId: string) => string} [tabLabel]   a tab's title (or URL) for the person
 */

export class Approvals {
  /** @param {ApprovalOptions} opts */
  constructor(opts) {
    this.opts = opts;
    /** @type {Approval[]} */
    this.waiting = [];
    /** The card shown now (its id), and when it may be answered (performance.now()). */
    this.shownId = '';
    this.armedAt = 0;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.arming = undefined;
    const doc = opts.stage.ownerDocument;
    const el = (/** @type {string} */ tag, /** @type {Record<string, string>} */ attrs = {}) => {
      const e = doc.createElement(tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      return e;
    };
    this.card = el('section', { id: 'approval', class: 'page-dialog', role: 'alertdialog', 'aria-labelledby': 'approval-title' });
    this.card.hidden = true;
    const box = el('div', { class: 'page-dialog-card' });
    this.title = el('strong', { id: 'approval-title' });
    this.page = el('p', { id: 'approval-page' });
    this.detail = el('pre', { id: 'approval-detail', class: 'approval-scroll' });
    this.bodyLabel = el('p', { id: 'approval-body-label' });
    this.body = el('pre', { id: 'approval-body', class: 'approval-scroll' });
    const actions = el('div', { class: 'page-dialog-actions' });
    const decline = /** @type {HTMLButtonElement} */ (el('button', { id: 'approval-decline', class: 'btn', type: 'button' }));
    decline.textContent = 'Decline';
    const always = /** @type {HTMLButtonElement} */ (el('button', { id: 'approval-always', class: 'btn', type: 'button' }));
    always.textContent = 'Always on this site';
    const allow = /** @type {HTMLButtonElement} */ (el('button', { id: 'approval-allow', class: 'btn primary', type: 'button' }));
    allow.textContent = 'Allow';
    actions.append(decline, always, allow);
    box.append(this.title, this.page, this.detail, this.bodyLabel, this.body, actions);
    this.card.append(box);
    opts.stage.append(this.card);
    /** @type {HTMLButtonElement[]} */
    this.buttons = [decline, always, allow];

    // A pointer press on the card never moves focus (onto a button a later Enter would
    // press, or off the screen she was typing into); only the script and body take a press,
    // so their text can be selected.
    this.card.addEventListener('mousedown', (e) => {
      const target = /** @type {Element | null} */ (e.target instanceof Element ? e.target : null);
      if (!target || !target.closest('pre')) e.preventDefault();
    });
    allow.addEventListener('click', (e) => this.answer(e, true, 'once'));
    always.addEventListener('click', (e) => this.answer(e, true, 'site'));
    decline.addEventListener('click', (e) => this.answer(e, false, 'once'));
    this.card.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        this.answer(e, false, 'once');
      }
    });
    this.render();
  }

  /** @param {Partial<Approval> & {id: string}} msg */
  asked(msg) {
    const size = Number(msg.body_size);
    const a = {
      id: String(msg.id),
      agent_id: String(msg.agent_id ?? ''),
      name: String(msg.name ?? ''),
      kind: String(msg.kind ?? ''),
      target_id: String(msg.target_id ?? ''),
      url: String(msg.url ?? ''),
      detail: String(msg.detail ?? ''),
      body: typeof msg.body === 'string' ? msg.body : null,
      body_size: Number.isFinite(size) ? size : null,
    };
    this.waiting = this.waiting.filter((x) => x.id !== a.id);
    this.waiting.push(a);
    this.render();
  }

  /** @param {string} id */
  closed(id) {
    this.waiting = this.waiting.filter((a) => a.id !== id);
    this.render();
  }

  /** Drops every card (a new connection, or the session ended: their acts are gone). */
  reset() {
    this.waiting = [];
    this.render();
  }

  /** The tabs' titles changed: the card names its tab anew. */
  tabsChanged() {
    this.render();
  }

  snapshot() {
    return this.waiting.map((a) => ({ ...a }));
  }

  /** Whether the card shown may be answered now. */
  armed() {
    return !!this.shownId && performance.now() >= this.armedAt;
  }

  /** @private @param {Event} event @param {boolean} allow @param {'once' | 'site'} remember */
  answer(event, allow, remember) {
    const a = this.waiting[0];
    if (!a || a.id !== this.shownId) return;
    if (!this.armed() || !event.isTrusted) return;
    if (!this.opts.send({ type: 'approval_answer', id: a.id, allow, remember })) return;
    this.waiting.shift();
    this.render();
  }

  /** @private */
  render() {
    const a = this.waiting[0];
    // Focus never rests in the card: whatever holds it after an answer lets go.
    const doc = this.card.ownerDocument;
    const root = /** @type {Document | ShadowRoot} */ (this.card.getRootNode());
    const focused = root.activeElement ?? doc.activeElement;
    if (focused instanceof HTMLElement && this.card.contains(focused)) focused.blur();
    this.card.hidden = !a;
    if (!a) {
      this.shownId = '';
      return;
    }
    if (a.id !== this.shownId) {
      // A card the person has not seen yet: its buttons wait before they take input.
      this.shownId = a.id;
      this.armedAt = performance.now() + ARMING_MS;
      for (const button of this.buttons) button.disabled = true;
      clearTimeout(this.arming);
      this.arming = setTimeout(() => {
        for (const button of this.buttons) button.disabled = false;
      }, ARMING_MS);
    }
    const who = a.name || a.agent_id || 'An agent';
    this.title.textContent = `${who} ${ASKS[a.kind] ?? `asks to do ${a.kind}`}`;
    const tab = (this.opts.tabLabel && a.target_id) ? this.opts.tabLabel(a.target_id) : 'a tab';
    this.page.textContent = `In tab “${tab}”: ${a.url}`;
    this.detail.textContent = a.detail;
    const hasBody = a.body !== null;
    this.bodyLabel.hidden = !hasBody;
    this.body.hidden = !hasBody;
    if (hasBody) {
      const body = /** @type {string} */ (a.body);
      const size = a.body_size ?? body.length;
      const shown = body.length > BODY_SHOWN ? body.slice(0, BODY_SHOWN) : body;
      this.bodyLabel.textContent = size > shown.length
        ? `It sends ${size} bytes; the first ${shown.length} characters:`
        : `It sends ${size} bytes:`;
      this.body.textContent = shown;
    }
  }
}
