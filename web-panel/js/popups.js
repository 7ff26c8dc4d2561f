// @ts-check
/**
 * popups.js — draws a page's open `<select>` popup over the screen. Chrome's screencast paints
 * no popup widget, so the daemon sends `select_popup` (options, and the select's rect in page
 * CSS px); this draws the list just below that rect and answers `select_answer` with the option
 * the person clicks. A press anywhere else answers `cancel` (and goes on to the page). Keys keep
 * going to the page, where Chrome's own popup handles them; `select_popup_closed` removes the
 * list whoever closed it.
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
 */

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
      this.answer({ cancel: true });
    }, true);
  }

  /** What tests and embedders read. */
  snapshot() {
    return this.open
      ? { id: this.open.id, target_id: this.open.target_id, labels: this.open.options.map((o) => o.label) }
      : null;
  }

  /** @param {SelectPopupMsg} msg */
  show(msg) {
    if (msg.target_id !== this.opts.watched()) return;
    this.remove();
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
