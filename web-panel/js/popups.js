// @ts-check
/**
 * popups.js — draws a page's open `<select>` popup over the screen. Chrome's screencast paints
 * no popup widget, so the daemon sends `select_popup` (options, and the select's rect in page
 * CSS px); this draws the list just below that rect and answers `select_answer` with the option
 * the person clicks. A press anywhere else answers `cancel` (and goes on to the page). Keys keep
 * going to the page, where Chrome's own popup handles them; `select_popup_closed` removes the
 * list whoever closed it.
 *
 * The same message with another `kind` is an `<input>`'s popup: `datalist` suggestions are
 * drawn as a list too (sent again, same id, as the person types; a press on the field itself
 * leaves them open), and a picker (`date`, `time`, `datetime-local`, `month`, `week`, `color`)
 * is drawn as a real `<input>` of that kind under the field, whose native picker the person's
 * own browser opens; its `change` (or Set) answers `select_answer {id, value}`.
 */

/**
 * @typedef {Object} SelectOptionMsg
 * @property {string} label
 * @property {string} value
 * @property {boolean} disabled
 * @property {string} [group]
 */

/**
 * @typedef {Object} SelectPopupMsg
 * @property {string} id
 * @property {string} target_id
 * @property {{x: number, y: number, width: number, height: number}} rect
 * @property {SelectOptionMsg[]} options
 * @property {number[]} selected
 * @property {boolean} multiple
 * @property {string} [kind]   select (absent from older daemons), datalist, or an input type
 * @property {string} [value]
 * @property {string} [min]
 * @property {string} [max]
 * @property {string} [step]
 */

/** Kinds drawn as a real input of that type rather than a list. */
const PICKERS = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'color']);

/**
 * @typedef {Object} PopupOptions
 * @property {HTMLElement} stage        positioned ancestor the list is drawn in
 * @property {HTMLElement} screen       the canvas the page is drawn on (fills the stage)
 * @property {() => {width: number, height: number} | null} getViewport  page viewport, CSS px
 * @property {() => string | null} watched  the tab the pane shows
 * @property {(msg: object) => void} send
 */

const LIST_STYLE = [
  'position:absolute', 'z-index:6', 'box-sizing:border-box', 'overflow-y:auto',
  'background:#fff', 'color:#111', 'border:1px solid #767676', 'box-shadow:0 2px 8px rgba(0,0,0,.35)',
  'font:13px system-ui,sans-serif', 'padding:2px 0', 'user-select:none', 'outline:none',
].join(';');
const OPTION_STYLE = 'padding:3px 8px;white-space:nowrap;cursor:default;';
const GROUP_STYLE = 'padding:3px 6px;font-weight:600;white-space:nowrap;cursor:default;';
const PICKER_STYLE = LIST_STYLE + ';display:flex;gap:6px;align-items:center;padding:6px;overflow:visible';
const HINT_STYLE = 'margin-left:8px;color:#666;';

export class SelectPopups {
  /** @param {PopupOptions} opts */
  constructor(opts) {
    this.opts = opts;
    /** @type {HTMLElement | null} */
    this.list = null;
    /** @type {SelectPopupMsg | null} */
    this.open = null;
    /** @type {Set<number>} options chosen so far in a multiple select */
    this.chosen = new Set();
    // A press outside the list closes the popup, as in a browser; the press goes on.
    opts.stage.addEventListener('mousedown', (e) => {
      if (!this.open || !this.list) return;
      if (e.composedPath().includes(this.list)) return;
      // A press on an input's own field leaves its suggestions or picker to the page.
      if (this.open.kind && this.open.kind !== 'select' && this.onField(e)) return;
      this.answer({ cancel: true });
    }, true);
  }

  /** What tests and embedders read. */
  snapshot() {
    return this.open
      ? {
        id: this.open.id,
        target_id: this.open.target_id,
        kind: this.open.kind || 'select',
        labels: this.open.options.map((o) => o.label),
        value: this.open.value ?? null,
      }
      : null;
  }

  /** @param {SelectPopupMsg} msg */
  show(msg) {
    if (msg.target_id !== this.opts.watched()) return;
    this.remove();
    if (msg.kind && PICKERS.has(msg.kind)) {
      this.showPicker(msg);
      return;
    }
    this.open = msg;
    this.chosen = new Set(msg.selected);
    const list = document.createElement('div');
    list.id = 'select-popup';
    list.setAttribute('role', 'listbox');
    list.style.cssText = LIST_STYLE;
    if (msg.multiple) list.setAttribute('aria-multiselectable', 'true');
    /** @type {string | undefined} */
    let group;
    msg.options.forEach((option, index) => {
      if (option.group !== undefined && option.group !== group) {
        const header = document.createElement('div');
        header.className = 'select-group';
        header.setAttribute('role', 'presentation');
        header.style.cssText = GROUP_STYLE;
        header.textContent = option.group;
        list.appendChild(header);
      }
      group = option.group;
      const item = document.createElement('div');
      item.className = 'select-option';
      item.setAttribute('role', 'option');
      item.dataset.index = String(index);
      item.textContent = option.label || '\u00a0';
      if (msg.kind === 'datalist' && option.label !== option.value) {
        const hint = document.createElement('span');
        hint.className = 'select-hint';
        hint.style.cssText = HINT_STYLE;
        hint.textContent = option.value;
        item.appendChild(hint);
      }
      item.style.cssText = OPTION_STYLE + (option.group !== undefined ? 'padding-left:20px;' : '')
        + (option.disabled ? 'color:#888;' : '');
      if (option.disabled) item.setAttribute('aria-disabled', 'true');
      this.paint(item, this.chosen.has(index));
      item.addEventListener('mouseenter', () => { if (!option.disabled) this.paint(item, true); });
      item.addEventListener('mouseleave', () => { if (!option.disabled) this.paint(item, this.chosen.has(index)); });
      item.addEventListener('mousedown', (e) => e.preventDefault()); // focus stays on the screen
      item.addEventListener('click', () => this.choose(index));
      list.appendChild(item);
    });
    this.list = list;
    this.opts.stage.appendChild(list);
    this.place();
  }

  /**
   * A picker: a real input of the kind, filled in, under the field; the person's browser
   * shows its own picker for it.
   * @private
   * @param {SelectPopupMsg} msg
   */
  showPicker(msg) {
    this.open = msg;
    const card = document.createElement('div');
    card.id = 'select-popup';
    card.className = 'picker-popup';
    card.setAttribute('role', 'dialog');
    card.style.cssText = PICKER_STYLE;
    const input = document.createElement('input');
    input.id = 'picker-input';
    input.type = String(msg.kind);
    for (const k of /** @type {const} */ (['min', 'max', 'step'])) {
      const v = msg[k];
      if (v) input.setAttribute(k, v);
    }
    input.value = msg.value || '';
    const button = (/** @type {string} */ id, /** @type {string} */ text) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.id = id;
      b.className = 'btn small';
      b.textContent = text;
      b.addEventListener('mousedown', (e) => e.stopPropagation());
      return b;
    };
    const set = button('picker-set', 'Set');
    const cancel = button('picker-cancel', 'Cancel');
    input.addEventListener('change', () => this.answer({ value: input.value }));
    set.addEventListener('click', () => this.answer({ value: input.value }));
    cancel.addEventListener('click', () => this.answer({ cancel: true }));
    card.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') { e.preventDefault(); this.answer({ cancel: true }); }
      if (e.key === 'Enter') { e.preventDefault(); this.answer({ value: input.value }); }
    });
    card.append(input, set, cancel);
    this.list = card;
    this.opts.stage.appendChild(card);
    this.place();
    // The person's click on the field just now lets the page open the native picker.
    try { /** @type {any} */ (input).showPicker(); } catch (_) { /* no activation left, or none for this type */ }
  }

  /**
   * Whether a press lies on the open popup's own field (the page's input).
   * @private
   * @param {MouseEvent} e
   */
  onField(e) {
    const open = this.open;
    if (!open) return false;
    const screen = this.opts.screen.getBoundingClientRect();
    const vp = this.opts.getViewport() || { width: screen.width || 1, height: screen.height || 1 };
    const x = ((e.clientX - screen.left) / (screen.width || 1)) * vp.width;
    const y = ((e.clientY - screen.top) / (screen.height || 1)) * vp.height;
    const r = open.rect;
    return x >= r.x && x <= r.x + r.width && y >= r.y && y <= r.y + r.height;
  }

  /** The daemon says the popup closed. @param {string} id */
  closed(id) {
    if (this.open && this.open.id === id) this.remove();
  }

  /** The pane moved to another tab, or the session ended. */
  reset() {
    this.remove();
  }

  /**
   * @private
   * @param {HTMLElement} item
   * @param {boolean} on
   */
  paint(item, on) {
    item.style.background = on ? '#1a73e8' : '';
    item.style.color = on ? '#fff' : (item.getAttribute('aria-disabled') ? '#888' : '');
    item.setAttribute('aria-selected', on ? 'true' : 'false');
  }

  /** @private @param {number} index */
  choose(index) {
    const open = this.open;
    if (!open || open.options[index].disabled) return;
    if (!open.multiple) {
      this.answer({ index });
      return;
    }
    if (this.chosen.has(index)) this.chosen.delete(index);
    else this.chosen.add(index);
    this.answer({ indices: [...this.chosen].sort((a, b) => a - b) });
  }

  /** @private @param {object} fields */
  answer(fields) {
    if (!this.open) return;
    this.opts.send({ type: 'select_answer', id: this.open.id, ...fields });
    this.remove();
  }

  /** Lay the list out under the select (above it when there is no room below). @private */
  place() {
    const list = this.list;
    const open = this.open;
    if (!list || !open) return;
    const stage = this.opts.stage.getBoundingClientRect();
    const screen = this.opts.screen.getBoundingClientRect();
    const vp = this.opts.getViewport() || { width: screen.width || 1, height: screen.height || 1 };
    const sx = screen.width / (vp.width || 1);
    const sy = screen.height / (vp.height || 1);
    const left = screen.left - stage.left + open.rect.x * sx;
    const top = screen.top - stage.top + open.rect.y * sy;
    const below = top + open.rect.height * sy;
    list.style.left = `${Math.max(0, left)}px`;
    list.style.minWidth = `${open.rect.width * sx}px`;
    const wanted = list.scrollHeight;
    const roomBelow = stage.height - below;
    if (wanted <= roomBelow || roomBelow >= top) {
      list.style.top = `${below}px`;
      list.style.maxHeight = `${Math.max(40, roomBelow)}px`;
    } else {
      const height = Math.min(wanted, top);
      list.style.top = `${Math.max(0, top - height)}px`;
      list.style.maxHeight = `${Math.max(40, top)}px`;
    }
  }

  /** @private */
  remove() {
    if (this.list) this.list.remove();
    this.list = null;
    this.open = null;
  }
}
