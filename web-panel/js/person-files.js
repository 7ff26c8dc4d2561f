// @ts-check
/**
 * person-files.js — files the person hands the page (DESIGN.md §15):
 * - file choosers (`file_chooser` … `file_chooser_closed`): a card over the view with the
 *   page's `accept` list and a file input of the pane's own; the person picks files there, the
 *   pane reads them, base64, and answers `file_chooser_answer` (or `cancel: true`). A page
 *   cannot open the person's own chooser from a socket message (browsers want a click), so the
 *   card asks for that click.
 * - files dropped from the desktop onto the view: read the same way and sent as `drop_files`
 *   at the page point under the drop.
 * The daemon bounds the size (`browser.pane_upload_max_mb`) and says so in an `error`.
 * Several choosers may be open at once (in different tabs): the oldest is shown.
 */

/**
 * @typedef {{id: string, target_id: string, multiple: boolean, accept: string}} Chooser
 * @typedef {{name: string, type: string, data: string}} PaneFile
 */

/**
 * @typedef {Object} PersonFilesOptions
 * @property {HTMLElement} stage                the view's container (the card goes over it)
 * @property {(msg: object) => boolean} send
 * @property {(e: MouseEvent) => {x: number, y: number}} toPage   client point → page CSS px
 * @property {(text: string) => void} [onError]  a file could not be read
 */

export class PersonFiles {
  /** @param {PersonFilesOptions} opts */
  constructor(opts) {
    this.opts = opts;
    /** @type {Chooser[]} */
    this.choosers = [];
    const doc = opts.stage.ownerDocument;
    const el = (/** @type {string} */ tag, /** @type {Record<string, string>} */ attrs = {}) => {
      const e = doc.createElement(tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      return e;
    };
    this.card = el('section', { id: 'file-chooser', class: 'page-dialog', role: 'dialog', 'aria-labelledby': 'file-chooser-title' });
    this.card.hidden = true;
    const inner = el('div', { class: 'page-dialog-card' });
    this.title = el('strong', { id: 'file-chooser-title' });
    this.note = el('p', { id: 'file-chooser-note' });
    this.input = /** @type {HTMLInputElement} */ (el('input', { id: 'file-chooser-input', type: 'file', 'aria-label': 'Files for the page' }));
    const actions = el('div', { class: 'page-dialog-actions' });
    this.cancelButton = /** @type {HTMLButtonElement} */ (el('button', { id: 'file-chooser-cancel', class: 'btn', type: 'button' }));
    this.cancelButton.textContent = 'Cancel';
    this.sendButton = /** @type {HTMLButtonElement} */ (el('button', { id: 'file-chooser-send', class: 'btn primary', type: 'button' }));
    this.sendButton.textContent = 'Send';
    actions.append(this.cancelButton, this.sendButton);
    inner.append(this.title, this.note, this.input, actions);
    this.card.append(inner);
    opts.stage.append(this.card);

    this.input.addEventListener('change', () => { this.sendButton.disabled = !this.input.files?.length; });
    this.cancelButton.addEventListener('click', () => this.answer(true));
    this.sendButton.addEventListener('click', () => this.answer(false));
    this.card.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        this.answer(true);
      }
    });
    this.bindDrop();
    this.render();
  }

  /** @param {Chooser} msg */
  chooser(msg) {
    const c = {
      id: String(msg.id),
      target_id: String(msg.target_id ?? ''),
      multiple: Boolean(msg.multiple),
      accept: String(msg.accept ?? ''),
    };
    const fresh = !this.choosers.length;
    this.choosers = this.choosers.filter((x) => x.id !== c.id && x.target_id !== c.target_id);
    this.choosers.push(c);
    this.render(fresh);
  }

  /** @param {string} id */
  closed(id) {
    const wasShown = this.choosers.length > 0 && this.choosers[0].id === id;
    this.choosers = this.choosers.filter((c) => c.id !== id);
    this.render(wasShown);
  }

  reset() {
    this.choosers = [];
    this.render(true);
  }

  snapshot() {
    return this.choosers.map((c) => ({ ...c }));
  }

  /**
   * @private
   * @param {boolean} cancel
   */
  async answer(cancel) {
    const c = this.choosers[0];
    if (!c) return;
    if (cancel) {
      if (!this.opts.send({ type: 'file_chooser_answer', id: c.id, cancel: true })) return;
    } else {
      const picked = Array.from(this.input.files || []);
      if (!picked.length) return;
      this.sendButton.disabled = true;
      let files;
      try {
        files = await readFiles(picked);
      } catch (e) {
        this.opts.onError?.(`could not read the files: ${e}`);
        this.sendButton.disabled = false;
        return;
      }
      if (!this.opts.send({ type: 'file_chooser_answer', id: c.id, files })) {
        this.sendButton.disabled = false;
        return;
      }
    }
    // Shown as answered at once; `file_chooser_closed` confirms it for every pane (an
    // `error` — too large — leaves the chooser open in the daemon: it comes back on reconnect).
    this.choosers.shift();
    this.render(true);
  }

  /** @private @param {boolean} [fresh] */
  render(fresh = false) {
    const c = this.choosers[0];
    this.card.hidden = !c;
    if (!c) return;
    this.title.textContent = c.multiple ? 'The page asks for files' : 'The page asks for a file';
    this.note.textContent = c.accept ? `It accepts: ${c.accept}` : 'Choose what to hand it.';
    this.input.multiple = c.multiple;
    this.input.accept = c.accept;
    if (fresh) {
      this.input.value = '';
      this.sendButton.disabled = true;
      this.input.focus();
    }
  }

  /** Files dragged from the desktop over the view are dropped in the page. @private */
  bindDrop() {
    const stage = this.opts.stage;
    /** @param {DragEvent} e */
    const carriesFiles = (e) => Array.from(e.dataTransfer?.types || []).includes('Files');
    stage.addEventListener('dragover', (e) => {
      if (!carriesFiles(e) || !e.dataTransfer) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
    });
    stage.addEventListener('drop', async (e) => {
      if (!carriesFiles(e) || !e.dataTransfer) return;
      e.preventDefault();
      const point = this.opts.toPage(e);
      const picked = Array.from(e.dataTransfer.files);
      if (!picked.length) return;
      try {
        const files = await readFiles(picked);
        this.opts.send({ type: 'drop_files', x: point.x, y: point.y, files });
      } catch (err) {
        this.opts.onError?.(`could not read the dropped files: ${err}`);
      }
    });
  }
}

/**
 * Reads files as `{name, type, data}` with base64 data.
 * @param {File[]} files
 * @returns {Promise<PaneFile[]>}
 */
export async function readFiles(files) {
  return Promise.all(files.map(async (f) => ({ name: f.name, type: f.type || '', data: await base64Of(f) })));
}

/** @param {Blob} blob @returns {Promise<string>} */
function base64Of(blob) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result || '');
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}
