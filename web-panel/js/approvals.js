// @ts-check
/**
 * approvals.js — the person's approval of an agent's act (DESIGN.md §20): `approval` …
 * `approval_closed` shows a card over the view naming the agent, the kind, the detail (the
 * method and URL; the script; the file names; the item) and the tab's page, with Allow,
 * Decline and "Always on this site" → `approval_answer {id, allow, remember}`. Escape
 * declines. Several may wait at once: the oldest is shown. Only a pane answers approvals.
 */

/**
 * @typedef {{id: string, agent_id: string, name: string, kind: string, target_id: string,
 *   url: string, detail: string}} Approval
 */

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
 */

export class Approvals {
  /** @param {ApprovalOptions} opts */
  constructor(opts) {
    this.opts = opts;
    /** @type {Approval[]} */
    this.waiting = [];
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
    this.detail = el('pre', { id: 'approval-detail' });
    const actions = el('div', { class: 'page-dialog-actions' });
    const decline = /** @type {HTMLButtonElement} */ (el('button', { id: 'approval-decline', class: 'btn', type: 'button' }));
    decline.textContent = 'Decline';
    const always = /** @type {HTMLButtonElement} */ (el('button', { id: 'approval-always', class: 'btn', type: 'button' }));
    always.textContent = 'Always on this site';
    const allow = /** @type {HTMLButtonElement} */ (el('button', { id: 'approval-allow', class: 'btn primary', type: 'button' }));
    allow.textContent = 'Allow';
    actions.append(decline, always, allow);
    box.append(this.title, this.page, this.detail, actions);
    this.card.append(box);
    opts.stage.append(this.card);
    this.allowButton = allow;

    allow.addEventListener('click', () => this.answer(true, 'once'));
    always.addEventListener('click', () => this.answer(true, 'site'));
    decline.addEventListener('click', () => this.answer(false, 'once'));
    this.card.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        this.answer(false, 'once');
      }
    });
    this.render();
  }

  /** @param {Approval} msg */
  asked(msg) {
    const a = {
      id: String(msg.id),
      agent_id: String(msg.agent_id ?? ''),
      name: String(msg.name ?? ''),
      kind: String(msg.kind ?? ''),
      target_id: String(msg.target_id ?? ''),
      url: String(msg.url ?? ''),
      detail: String(msg.detail ?? ''),
    };
    const fresh = !this.waiting.length;
    this.waiting = this.waiting.filter((x) => x.id !== a.id);
    this.waiting.push(a);
    this.render(fresh);
  }

  /** @param {string} id */
  closed(id) {
    const wasShown = this.waiting.length > 0 && this.waiting[0].id === id;
    this.waiting = this.waiting.filter((a) => a.id !== id);
    this.render(wasShown);
  }

  reset() {
    this.waiting = [];
    this.render();
  }

  snapshot() {
    return this.waiting.map((a) => ({ ...a }));
  }

  /** @private @param {boolean} allow @param {'once' | 'site'} remember */
  answer(allow, remember) {
    const a = this.waiting[0];
    if (!a) return;
    if (!this.opts.send({ type: 'approval_answer', id: a.id, allow, remember })) return;
    this.waiting.shift();
    this.render(true);
  }

  /** @private @param {boolean} [fresh] */
  render(fresh = false) {
    const a = this.waiting[0];
    this.card.hidden = !a;
    if (!a) return;
    const who = a.name || a.agent_id || 'An agent';
    this.title.textContent = `${who} ${ASKS[a.kind] ?? `asks to do ${a.kind}`}`;
    this.page.textContent = `In tab ${a.target_id}: ${a.url}`;
    this.detail.textContent = a.detail;
    if (fresh) this.allowButton.focus();
  }
}
