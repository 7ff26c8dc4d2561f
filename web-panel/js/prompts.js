// @ts-check
/**
 * prompts.js — the two things agents and pages ask of the person (DESIGN.md §12):
 * - handoffs (`handoff` … `handoff_ended`): a banner above the view with the agent's name, its
 *   reason, an optional note and a Done button → `handoff_done`. It never covers the view: the
 *   person has to use the page (log in, solve a captcha) before pressing Done.
 * - JavaScript dialogs (`dialog` … `dialog_closed`): a card over the view with the message, a
 *   text field for `prompt`, OK / Cancel → `dialog_answer`. Nobody else answers for the person.
 * Several may be open at once: the oldest is shown, the rest wait their turn.
 */

/**
 * @typedef {{id: string, agent_id: string, name: string, reason: string, target_id: string | null}} Handoff
 * @typedef {{target_id: string, kind: string, message: string, default_prompt?: string}} Dialog
 */

/**
 * @typedef {Object} PromptsOptions
 * @property {HTMLElement} handoff         banner
 * @property {HTMLElement} handoffTitle
 * @property {HTMLElement} handoffReason
 * @property {HTMLInputElement} handoffNote
 * @property {HTMLButtonElement} handoffDone
 * @property {HTMLElement} dialog          card over the view
 * @property {HTMLElement} dialogTitle
 * @property {HTMLElement} dialogMessage
 * @property {HTMLInputElement} dialogText
 * @property {HTMLButtonElement} dialogOk
 * @property {HTMLButtonElement} dialogCancel
 * @property {(msg: object) => boolean} send
 * @property {(targetId: string) => string} tabLabel   a tab's title, for dialogs of other tabs
 * @property {() => string | null} watched   the tab this pane shows
 * @property {() => void} onChange
 */

export class Prompts {
  /** @param {PromptsOptions} opts */
  constructor(opts) {
    this.opts = opts;
    /** @type {Handoff[]} */
    this.handoffs = [];
    /** @type {Dialog[]} */
    this.dialogs = [];

    opts.handoffDone.addEventListener('click', () => this.answerHandoff());
    opts.handoffNote.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.isComposing) {
        e.preventDefault();
        this.answerHandoff();
      }
    });
    opts.dialogOk.addEventListener('click', () => this.answerDialog(true));
    opts.dialogCancel.addEventListener('click', () => this.answerDialog(false));
    opts.dialog.addEventListener('keydown', (e) => {
      if (e.isComposing) return;
      if (e.key === 'Enter') {
        e.preventDefault();
        this.answerDialog(true);
      } else if (e.key === 'Escape') {
        e.preventDefault();
        this.answerDialog(false);
      }
    });
    this.render();
  }

  /** @param {Handoff} msg */
  handoff(msg) {
    const h = {
      id: String(msg.id),
      agent_id: String(msg.agent_id ?? ''),
      name: String(msg.name || msg.agent_id || 'An agent'),
      reason: String(msg.reason ?? ''),
      target_id: msg.target_id ?? null,
    };
    const i = this.handoffs.findIndex((x) => x.id === h.id);
    if (i >= 0) this.handoffs[i] = h;
    else this.handoffs.push(h);
    this.render();
  }

  /** @param {string} id */
  handoffEnded(id) {
    this.handoffs = this.handoffs.filter((h) => h.id !== id);
    this.render();
  }

  /** @param {Dialog} msg */
  dialog(msg) {
    /** @type {Dialog} */
    const d = {
      target_id: String(msg.target_id),
      kind: String(msg.kind || 'alert'),
      message: String(msg.message ?? ''),
    };
    if (typeof msg.default_prompt === 'string') d.default_prompt = msg.default_prompt;
    const fresh = !this.dialogs.length || this.dialogs[0].target_id === d.target_id;
    this.dialogs = this.dialogs.filter((x) => x.target_id !== d.target_id);
    this.dialogs.push(d);
    this.render(fresh);
  }

  /** @param {string} targetId */
  dialogClosed(targetId) {
    const wasShown = this.dialogs.length > 0 && this.dialogs[0].target_id === targetId;
    this.dialogs = this.dialogs.filter((d) => d.target_id !== targetId);
    this.render(wasShown);
  }

  /** A tab went away: its dialog with it. @param {string} targetId */
  tabClosed(targetId) {
    if (this.dialogs.some((d) => d.target_id === targetId)) this.dialogClosed(targetId);
  }

  /** Forget everything (new session or connection; the daemon tells again what is open). */
  reset() {
    this.handoffs = [];
    this.dialogs = [];
    this.render(true);
  }

  snapshot() {
    return {
      handoffs: this.handoffs.map((h) => ({ ...h })),
      dialogs: this.dialogs.map((d) => ({ ...d })),
    };
  }

  /** @private */
  answerHandoff() {
    const h = this.handoffs[0];
    if (!h) return;
    const note = this.opts.handoffNote.value.trim();
    /** @type {Record<string, unknown>} */
    const msg = { type: 'handoff_done', id: h.id };
    if (note) msg.note = note;
    if (!this.opts.send(msg)) return;
    // Shown as answered at once; `handoff_ended` removes it for every pane.
    this.handoffs.shift();
    this.opts.handoffNote.value = '';
    this.render();
  }

  /**
   * @private
   * @param {boolean} accept
   */
  answerDialog(accept) {
    const d = this.dialogs[0];
    if (!d) return;
    /** @type {Record<string, unknown>} */
    const msg = { type: 'dialog_answer', target_id: d.target_id, accept };
    if (d.kind === 'prompt' && accept) msg.text = this.opts.dialogText.value;
    if (!this.opts.send(msg)) return;
    this.dialogs.shift();
    this.render(true);
  }

  /**
   * @private
   * @param {boolean} [freshDialog]  the dialog shown changed: reset its text field and focus it
   */
  render(freshDialog = false) {
    const o = this.opts;
    const h = this.handoffs[0];
    o.handoff.hidden = !h;
    if (h) {
      const more = this.handoffs.length > 1 ? ` (+${this.handoffs.length - 1} more)` : '';
      o.handoffTitle.textContent = `${h.name} asks for your help${more}`;
      o.handoffReason.textContent = h.reason;
    }

    const d = this.dialogs[0];
    const wasHidden = o.dialog.hidden;
    o.dialog.hidden = !d;
    if (d) {
      const where = d.target_id !== o.watched() ? ` in “${o.tabLabel(d.target_id)}”` : '';
      o.dialogTitle.textContent = `${TITLES[d.kind] || 'The page says'}${where}`;
      o.dialogMessage.textContent = d.message;
      o.dialog.dataset.kind = d.kind;
      o.dialogText.hidden = d.kind !== 'prompt';
      o.dialogCancel.hidden = d.kind === 'alert';
      o.dialogOk.textContent = d.kind === 'beforeunload' ? 'Leave' : 'OK';
      o.dialogCancel.textContent = d.kind === 'beforeunload' ? 'Stay' : 'Cancel';
      if (freshDialog || wasHidden) {
        o.dialogText.value = d.default_prompt ?? '';
        (d.kind === 'prompt' ? o.dialogText : o.dialogOk).focus({ preventScroll: true });
      }
    }
    o.onChange();
  }
}

/** @type {Record<string, string>} */
const TITLES = {
  alert: 'The page says',
  confirm: 'The page asks you to confirm',
  prompt: 'The page asks for text',
  beforeunload: 'Leave this page? Changes may not be saved',
};
