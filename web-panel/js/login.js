// @ts-check
/**
 * login.js — HTTP authentication for the person (DESIGN.md §15): `auth_prompt` …
 * `auth_prompt_closed` shows a card over the view naming the site and realm, with user name
 * and password fields; Sign in → `auth_answer {username, password}`, Cancel (or Escape) →
 * `auth_answer {cancel: true}` (the page then shows the server's 401 page). The password is
 * cleared from the field as soon as it is sent and kept nowhere else.
 * Several may be open at once: the oldest is shown.
 */

/** @typedef {{id: string, target_id: string, url: string, origin: string, realm: string, scheme: string}} AuthPrompt */

/**
 * @typedef {Object} LoginOptions
 * @property {HTMLElement} stage   the view's container (the card goes over it)
 * @property {(msg: object) => boolean} send
 */

export class LoginPrompts {
  /** @param {LoginOptions} opts */
  constructor(opts) {
    this.opts = opts;
    /** @type {AuthPrompt[]} */
    this.prompts = [];
    const doc = opts.stage.ownerDocument;
    const el = (/** @type {string} */ tag, /** @type {Record<string, string>} */ attrs = {}) => {
      const e = doc.createElement(tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      return e;
    };
    this.card = el('section', { id: 'login', class: 'page-dialog', role: 'dialog', 'aria-labelledby': 'login-title' });
    this.card.hidden = true;
    const form = el('form', { class: 'page-dialog-card' });
    this.title = el('strong', { id: 'login-title' });
    this.realm = el('p', { id: 'login-realm' });
    this.user = /** @type {HTMLInputElement} */ (el('input', { id: 'login-user', type: 'text', autocomplete: 'username', spellcheck: 'false', placeholder: 'User name', 'aria-label': 'User name' }));
    this.password = /** @type {HTMLInputElement} */ (el('input', { id: 'login-password', type: 'password', autocomplete: 'current-password', placeholder: 'Password', 'aria-label': 'Password' }));
    const actions = el('div', { class: 'page-dialog-actions' });
    const cancel = /** @type {HTMLButtonElement} */ (el('button', { id: 'login-cancel', class: 'btn', type: 'button' }));
    cancel.textContent = 'Cancel';
    const ok = /** @type {HTMLButtonElement} */ (el('button', { id: 'login-ok', class: 'btn primary', type: 'submit' }));
    ok.textContent = 'Sign in';
    actions.append(cancel, ok);
    form.append(this.title, this.realm, this.user, this.password, actions);
    this.card.append(form);
    opts.stage.append(this.card);

    form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.answer(false);
    });
    cancel.addEventListener('click', () => this.answer(true));
    this.card.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        this.answer(true);
      }
    });
    this.render();
  }

  /** @param {AuthPrompt} msg */
  prompt(msg) {
    const p = {
      id: String(msg.id),
      target_id: String(msg.target_id ?? ''),
      url: String(msg.url ?? ''),
      origin: String(msg.origin ?? ''),
      realm: String(msg.realm ?? ''),
      scheme: String(msg.scheme ?? ''),
    };
    const fresh = !this.prompts.length;
    this.prompts = this.prompts.filter((x) => x.id !== p.id);
    this.prompts.push(p);
    this.render(fresh);
  }

  /** @param {string} id */
  closed(id) {
    const wasShown = this.prompts.length > 0 && this.prompts[0].id === id;
    this.prompts = this.prompts.filter((p) => p.id !== id);
    this.render(wasShown);
  }

  reset() {
    this.prompts = [];
    this.render(true);
  }

  snapshot() {
    return this.prompts.map((p) => ({ ...p }));
  }

  /** @private @param {boolean} cancel */
  answer(cancel) {
    const p = this.prompts[0];
    if (!p) return;
    const msg = cancel
      ? { type: 'auth_answer', id: p.id, cancel: true }
      : { type: 'auth_answer', id: p.id, username: this.user.value, password: this.password.value };
    if (!this.opts.send(msg)) return;
    this.password.value = '';
    this.prompts.shift();
    this.render(true);
  }

  /** @private @param {boolean} [fresh] */
  render(fresh = false) {
    const p = this.prompts[0];
    this.card.hidden = !p;
    if (!p) return;
    this.title.textContent = `Sign in to ${p.origin || p.url}`;
    const scheme = p.scheme ? ` (${p.scheme})` : '';
    this.realm.textContent = p.realm ? `The site says: “${p.realm}”${scheme}` : `The site asks for a login${scheme}.`;
    if (fresh) {
      this.user.value = '';
      this.password.value = '';
      this.user.focus();
    }
  }
}
