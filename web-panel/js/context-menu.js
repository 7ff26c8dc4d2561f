// @ts-check
/**
 * context-menu.js — the menu a right click in the page offers the person (DESIGN.md §15).
 * The page's Chrome draws no menu the screencast could show, so the daemon sends
 * `context_menu {id, x, y, link?, image?, selection?}` (after the page's own `contextmenu`
 * handlers left it to the browser) and this draws a small menu at that point: open the link
 * (or image) in a new tab (`new_tab {url}`, the pane follows it), copy the link or image
 * address or the selected text (the person's clipboard), copy the image (`copy_image {id}` →
 * `image_copy {png}` → a ClipboardItem), back, forward, reload, print. A press elsewhere,
 * Escape or another tab closes it.
 */

/**
 * @typedef {Object} ContextMenuMsg
 * @property {string} id
 * @property {string} target_id
 * @property {number} x
 * @property {number} y
 * @property {string} [link]
 * @property {string} [link_text]
 * @property {string} [image]
 * @property {string} [selection]
 */

/**
 * @typedef {Object} ContextMenuOptions
 * @property {HTMLElement} stage        positioned ancestor the menu is drawn in
 * @property {HTMLElement} screen       the canvas the page is drawn on
 * @property {() => {width: number, height: number} | null} getViewport  page viewport, CSS px
 * @property {() => string | null} watched  the tab the pane shows
 * @property {(msg: object) => boolean} send
 * @property {(text: string) => void} writeText   put text on the person's clipboard
 * @property {(text: string, kind: 'info' | 'error') => void} notify
 * @property {(image: {width: number, height: number, bytes: number}) => void} [onImageWritten]
 */

const MENU_STYLE = [
  'position:absolute', 'z-index:7', 'min-width:200px', 'box-sizing:border-box', 'padding:4px 0',
  'background:#fff', 'color:#111', 'border:1px solid #b0b0b0', 'border-radius:4px',
  'box-shadow:0 2px 10px rgba(0,0,0,.35)', 'font:13px system-ui,sans-serif', 'user-select:none',
].join(';');
const ITEM_STYLE = 'padding:5px 16px;white-space:nowrap;cursor:default;';
const RULE_STYLE = 'height:1px;margin:4px 0;background:#ddd;';
/** Codes of the errors that answer a `copy_image`. */
const IMAGE_ERRORS = new Set(['image_unavailable', 'image_too_large', 'no_context_menu', 'bad_request']);

export class ContextMenu {
  /** @param {ContextMenuOptions} opts */
  constructor(opts) {
    this.opts = opts;
    /** @type {HTMLElement | null} */
    this.menu = null;
    /** @type {ContextMenuMsg | null} */
    this.open = null;
    /** @type {{id: string, resolve: (b: Blob) => void, reject: (e: Error) => void} | null} */
    this.pendingImage = null;
    /** @type {{width: number, height: number, bytes: number} | null} the last image received */
    this.lastImage = null;
    opts.stage.addEventListener('mousedown', (e) => {
      if (this.menu && !e.composedPath().includes(this.menu)) this.remove();
    }, true);
    opts.stage.addEventListener('keydown', (e) => {
      if (this.menu && e.key === 'Escape') this.remove();
    }, true);
  }

  /** What tests and embedders read. */
  snapshot() {
    if (!this.open || !this.menu) return null;
    const items = [...this.menu.querySelectorAll('.menu-item')].map((i) => i.textContent || '');
    return { id: this.open.id, target_id: this.open.target_id, link: this.open.link ?? null, image: this.open.image ?? null, items };
  }

  /** @param {ContextMenuMsg} msg */
  show(msg) {
    if (msg.target_id !== this.opts.watched()) return;
    this.remove();
    this.open = msg;
    const menu = document.createElement('div');
    menu.id = 'context-menu';
    menu.setAttribute('role', 'menu');
    menu.style.cssText = MENU_STYLE;
    /** @type {Array<[string, string, () => void] | null>} */
    const items = [];
    const send = (/** @type {object} */ m) => { this.opts.send(m); };
    if (msg.link) {
      const link = msg.link;
      items.push(['open-link', 'Open link in new tab', () => send({ type: 'new_tab', url: link })]);
      items.push(['copy-link', 'Copy link address', () => this.opts.writeText(link)]);
      items.push(null);
    }
    if (msg.image) {
      const image = msg.image;
      items.push(['open-image', 'Open image in new tab', () => send({ type: 'new_tab', url: image })]);
      items.push(['copy-image', 'Copy image', () => this.copyImage(msg.id)]);
      items.push(['copy-image-address', 'Copy image address', () => this.opts.writeText(image)]);
      items.push(null);
    }
    if (msg.selection) {
      const text = msg.selection;
      // A long selection reached us cut short: the page's own copy sends all of it.
      items.push(['copy-text', 'Copy', () => (text.length >= 10000 ? send({ type: 'input', input_type: 'copy', modifiers: 0 }) : this.opts.writeText(text))]);
      items.push(null);
    }
    items.push(['back', 'Back', () => send({ type: 'back' })]);
    items.push(['forward', 'Forward', () => send({ type: 'forward' })]);
    items.push(['reload', 'Reload', () => send({ type: 'reload' })]);
    items.push(['print', 'Print to PDF', () => send({ type: 'print' })]);
    for (const item of items) {
      if (!item) {
        const rule = document.createElement('div');
        rule.setAttribute('role', 'separator');
        rule.style.cssText = RULE_STYLE;
        menu.appendChild(rule);
        continue;
      }
      const [id, label, act] = item;
      const el = document.createElement('div');
      el.className = 'menu-item';
      el.dataset.action = id;
      el.setAttribute('role', 'menuitem');
      el.style.cssText = ITEM_STYLE;
      el.textContent = label;
      el.addEventListener('mouseenter', () => { el.style.background = '#e8f0fe'; });
      el.addEventListener('mouseleave', () => { el.style.background = ''; });
      el.addEventListener('mousedown', (e) => e.preventDefault());
      el.addEventListener('click', () => {
        this.remove();
        act();
      });
      menu.appendChild(el);
    }
    this.menu = menu;
    this.opts.stage.appendChild(menu);
    this.place();
  }

  /** The pane moved to another tab, or the session ended. */
  reset() {
    this.remove();
    if (this.pendingImage) this.pendingImage.reject(new Error('the pane moved on'));
    this.pendingImage = null;
  }

  /** `image_copy`: the image asked for. @param {{id: string, png: string, width: number, height: number}} msg */
  imageArrived(msg) {
    const pending = this.pendingImage;
    if (!pending || pending.id !== msg.id) return;
    this.pendingImage = null;
    const bin = atob(msg.png);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    this.lastImage = { width: msg.width, height: msg.height, bytes: bytes.length };
    pending.resolve(new Blob([bytes], { type: 'image/png' }));
  }

  /** An `error`: it answers a pending copy image if its code says so. @param {{code: string, message: string}} error */
  failed(error) {
    if (!this.pendingImage || !IMAGE_ERRORS.has(error.code)) return;
    this.pendingImage.reject(new Error(error.message));
    this.pendingImage = null;
  }

  /**
   * Copy image: the clipboard write starts now (inside the person's click), with the PNG the
   * daemon sends as its promised content.
   * @private
   * @param {string} id
   */
  copyImage(id) {
    const clip = navigator.clipboard;
    if (!clip || !clip.write || typeof ClipboardItem === 'undefined') {
      this.opts.notify('Copy image failed: this browser cannot put images on the clipboard (needs https or localhost)', 'error');
      return;
    }
    if (this.pendingImage) this.pendingImage.reject(new Error('another copy image began'));
    /** @type {Promise<Blob>} */
    const blob = new Promise((resolve, reject) => { this.pendingImage = { id, resolve, reject }; });
    this.opts.send({ type: 'copy_image', id });
    clip.write([new ClipboardItem({ 'image/png': blob })]).then(
      () => { if (this.lastImage && this.opts.onImageWritten) this.opts.onImageWritten(this.lastImage); },
      (err) => this.opts.notify(`Copy image failed: ${err && err.message ? err.message : err}`, 'error'),
    );
  }

  /** At the clicked point, kept inside the stage. @private */
  place() {
    const menu = this.menu;
    const open = this.open;
    if (!menu || !open) return;
    const stage = this.opts.stage.getBoundingClientRect();
    const screen = this.opts.screen.getBoundingClientRect();
    const vp = this.opts.getViewport() || { width: screen.width || 1, height: screen.height || 1 };
    let left = screen.left - stage.left + (open.x * screen.width) / (vp.width || 1);
    let top = screen.top - stage.top + (open.y * screen.height) / (vp.height || 1);
    const w = menu.offsetWidth;
    const h = menu.offsetHeight;
    if (left + w > stage.width) left = Math.max(0, left - w);
    if (top + h > stage.height) top = Math.max(0, stage.height - h);
    menu.style.left = `${left}px`;
    menu.style.top = `${top}px`;
  }

  /** @private */
  remove() {
    if (this.menu) this.menu.remove();
    this.menu = null;
    this.open = null;
  }
}
