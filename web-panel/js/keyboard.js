// @ts-check
/**
 * keyboard.js — owns keyboard input and the clipboard: the modifier bitmask (Alt=1, Ctrl=2,
 * Meta=4, Shift=8; Cmd counts as Ctrl on macOS), keydown/keyup forwarding from the focused
 * screen, releasing held keys when focus leaves, Ctrl/Cmd+V → `paste {text}`, Ctrl/Cmd+C / X →
 * `copy` / `cut`, and writing the daemon's `clipboard` replies to the local clipboard.
 * IME (Chinese, Japanese, Korean, dead keys, emoji pickers): a canvas cannot receive
 * composition, so focus on the screen moves to a hidden textarea (the IME sink) over it; its
 * compositionstart/update send `input {input_type: "composition", text}` (the underlined
 * draft in the page, Input.imeSetComposition) and compositionend commits with `typetext`.
 * Pointer input is screen.js's.
 */

export const ALT = 1;
export const CTRL = 2;
export const META = 4;
export const SHIFT = 8;

/** True on macOS, where Cmd plays the role Ctrl plays elsewhere. */
export const IS_MAC = (() => {
  /** @type {any} */
  const nav = navigator;
  const platform = (nav.userAgentData && nav.userAgentData.platform) || navigator.platform || '';
  return /mac/i.test(platform) || (!platform && /Macintosh/.test(navigator.userAgent));
})();

/**
 * The modifier bitmask the daemon expects, for any keyboard, mouse or wheel event.
 * @param {KeyboardEvent | MouseEvent} e
 */
export function modifiersOf(e) {
  let m = 0;
  if (e.altKey) m |= ALT;
  if (e.shiftKey) m |= SHIFT;
  if (IS_MAC) {
    if (e.ctrlKey || e.metaKey) m |= CTRL;
  } else {
    if (e.ctrlKey) m |= CTRL;
    if (e.metaKey) m |= META;
  }
  return m;
}

/** How long Ctrl/Cmd+V waits for the browser's own `paste` event before asking the Clipboard API. */
const PASTE_EVENT_GRACE_MS = 80;
/** Focus returns to the screen after this long even if no paste arrived. */
const PASTE_SINK_MAX_MS = 1500;

/**
 * @typedef {Object} KeyboardOptions
 * @property {HTMLElement} root            an ancestor of `screen` and `sink`; listeners live here
 * @property {HTMLElement} screen          the focusable screen (canvas)
 * @property {HTMLTextAreaElement} sink    hidden textarea that catches native pastes
 * @property {(type: string, fields: object, modifiers: number) => void} sendInput
 * @property {(text: string, kind: 'info' | 'error') => void} notify   status line
 * @property {(text: string) => void} [onClipboardWritten]
 */

export class Keyboard {
  /** @param {KeyboardOptions} opts */
  constructor(opts) {
    this.opts = opts;
    /**
     * Keys whose keydown was sent and whose keyup is still owed, by code.
     * @type {Map<string, {key: string, code: string}>}
     */
    this.held = new Map();
    /** Id of the latest Ctrl/Cmd+V press, and of the last one that got its text. */
    this.pasteSeq = 0;
    this.pasteDone = 0;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.sinkTimer = undefined;

    const { root, sink } = opts;
    this.ime = makeImeSink(root);
    /** True between compositionstart and compositionend. */
    this.composing = false;
    // The screen's keyboard focus lives in the IME sink, which can receive composition. (A
    // press is watched as well: a page without system focus gets no `focus` events.)
    opts.screen.addEventListener('focus', () => this.focus());
    opts.screen.addEventListener('mousedown', () => this.focus());
    root.addEventListener('compositionstart', (e) => this.onComposition(/** @type {CompositionEvent} */ (e)));
    root.addEventListener('compositionupdate', (e) => this.onComposition(/** @type {CompositionEvent} */ (e)));
    root.addEventListener('compositionend', (e) => this.onComposition(/** @type {CompositionEvent} */ (e)));
    root.addEventListener('keydown', (e) => this.onKeyDown(e));
    root.addEventListener('keyup', (e) => this.onKeyUp(e));
    root.addEventListener('paste', (e) => this.onPaste(e));
    // Copy/cut from the browser's own menus while the screen has focus.
    root.addEventListener('copy', (e) => this.onCopyCut(e, 'copy'));
    root.addEventListener('cut', (e) => this.onCopyCut(e, 'cut'));
    root.addEventListener('focusout', (e) => {
      const next = /** @type {Node | null} */ (e.relatedTarget);
      if (!next || !this.isOurs(next)) this.releaseAll();
    });
    window.addEventListener('blur', () => this.releaseAll());
    sink.addEventListener('input', () => { sink.value = ''; });
    this.ime.addEventListener('input', () => { if (!this.composing) this.ime.value = ''; });
  }

  /** Put keyboard focus on the screen (its IME sink). */
  focus() {
    this.ime.focus({ preventScroll: true });
  }

  /**
   * @private
   * @param {EventTarget | null} target
   */
  isOurs(target) {
    return target === this.opts.screen || target === this.opts.sink || target === this.ime;
  }

  /**
   * An IME composition step: the draft goes to the page as `composition`, the end commits it.
   * @private
   * @param {CompositionEvent} e
   */
  onComposition(e) {
    if (!this.isOurs(e.target)) return;
    const text = typeof e.data === 'string' ? e.data : '';
    if (e.type === 'compositionend') {
      this.composing = false;
      // Committing an empty text cancels the draft.
      if (text) this.opts.sendInput('typetext', { text }, 0);
      else this.opts.sendInput('composition', { text: '' }, 0);
      this.ime.value = '';
      return;
    }
    this.composing = true;
    if (e.type === 'compositionupdate') this.opts.sendInput('composition', { text }, 0);
  }

  /**
   * @private
   * @param {KeyboardEvent} e
   */
  onKeyDown(e) {
    if (!this.isOurs(e.target)) return;
    // Keys the IME consumes reach the page as its composition (see onComposition).
    if (e.isComposing || e.keyCode === 229 || this.composing) return;
    const mods = modifiersOf(e);
    const primary = IS_MAC ? e.metaKey : e.ctrlKey;
    const letter = shortcutLetter(e);
    if (primary && !e.altKey) {
      if (letter === 'v') {
        // Leave the default alone: the browser's own paste lands in the sink (see beginPaste).
        this.beginPaste();
        return;
      }
      if (!e.shiftKey && (letter === 'c' || letter === 'x')) {
        e.preventDefault();
        this.opts.sendInput(letter === 'c' ? 'copy' : 'cut', {}, mods);
        return;
      }
    }
    e.preventDefault();
    const k = translateKey(e);
    this.held.set(k.code || k.key, k);
    this.opts.sendInput('keydown', { key: k.key, code: k.code }, mods);
  }

  /**
   * @private
   * @param {KeyboardEvent} e
   */
  onKeyUp(e) {
    if (!this.isOurs(e.target)) return;
    if (e.isComposing || this.composing) return;
    e.preventDefault();
    const k = translateKey(e);
    const id = k.code || k.key;
    if (!this.held.has(id)) return; // its keydown was a shortcut we handled ourselves
    this.held.delete(id);
    const mods = modifiersOf(e);
    this.opts.sendInput('keyup', { key: k.key, code: k.code }, mods);
    // macOS sends no keyup for keys released while Cmd is down: release them with Cmd.
    if (IS_MAC && e.key === 'Meta') {
      for (const [hid, hk] of this.held) {
        if (isModifierKey(hk.key)) continue;
        this.held.delete(hid);
        this.opts.sendInput('keyup', { key: hk.key, code: hk.code }, mods);
      }
    }
  }

  /** Send keyup for every key still held (focus left the screen, window lost focus). */
  releaseAll() {
    if (this.held.size === 0) return;
    const keys = [...this.held.values()];
    this.held.clear();
    for (const k of keys) this.opts.sendInput('keyup', { key: k.key, code: k.code }, 0);
  }

  /**
   * Ctrl/Cmd+V. Two routes, first one wins:
   *  1. the browser's native paste: focus moves to a hidden textarea during keydown, so the
   *     default paste action fires a `paste` event there with the clipboard text — no
   *     permission prompt;
   *  2. if no such event arrives shortly, `navigator.clipboard.readText()`.
   * @private
   */
  beginPaste() {
    const id = ++this.pasteSeq;
    const { sink } = this.opts;
    sink.value = '';
    sink.focus({ preventScroll: true });
    clearTimeout(this.sinkTimer);
    this.sinkTimer = setTimeout(() => this.refocusScreen(), PASTE_SINK_MAX_MS);
    setTimeout(() => {
      if (this.pasteDone >= id) return;
      const clip = navigator.clipboard;
      if (!clip || typeof clip.readText !== 'function') {
        this.opts.notify('Paste failed: the clipboard cannot be read on this page (needs https or localhost)', 'error');
        this.refocusScreen();
        return;
      }
      clip.readText().then(
        (text) => this.completePaste(id, text),
        (err) => {
          if (this.pasteDone >= id) return;
          this.opts.notify(`Paste failed: clipboard read was refused (${errorText(err)})`, 'error');
          this.refocusScreen();
        },
      );
    }, PASTE_EVENT_GRACE_MS);
  }

  /**
   * A `paste` event on the screen or the sink: from our Ctrl/Cmd+V, or from the browser's menu.
   * @private
   * @param {ClipboardEvent} e
   */
  onPaste(e) {
    if (!this.isOurs(e.target)) return;
    e.preventDefault();
    const text = e.clipboardData ? e.clipboardData.getData('text/plain') : '';
    // Outside a pending Ctrl/Cmd+V this is a paste of its own (e.g. from the Edit menu).
    const id = this.pasteDone < this.pasteSeq ? this.pasteSeq : ++this.pasteSeq;
    this.completePaste(id, text);
  }

  /**
   * @private
   * @param {number} id
   * @param {string} text
   */
  completePaste(id, text) {
    if (this.pasteDone >= id) return;
    this.pasteDone = id;
    this.refocusScreen();
    if (!text) {
      this.opts.notify('Nothing to paste: the clipboard has no text', 'info');
      return;
    }
    this.opts.sendInput('paste', { text }, 0);
  }

  /**
   * @private
   * @param {ClipboardEvent} e
   * @param {'copy' | 'cut'} kind
   */
  onCopyCut(e, kind) {
    if (e.target !== this.opts.screen && e.target !== this.ime) return;
    e.preventDefault();
    this.opts.sendInput(kind, {}, 0);
  }

  /** @private */
  refocusScreen() {
    clearTimeout(this.sinkTimer);
    const root = /** @type {Document | ShadowRoot} */ (this.opts.sink.getRootNode());
    if (root.activeElement === this.opts.sink) this.ime.focus({ preventScroll: true });
  }

  /**
   * Put text from the daemon's `clipboard` message on the local clipboard.
   * @param {string} text
   */
  writeClipboard(text) {
    const clip = navigator.clipboard;
    if (!clip || typeof clip.writeText !== 'function') {
      this.opts.notify('Copy failed: the clipboard cannot be written on this page (needs https or localhost)', 'error');
      return;
    }
    clip.writeText(text).then(
      () => {
        this.opts.notify(text ? `Copied ${text.length} character${text.length === 1 ? '' : 's'}` : 'Copied (empty selection)', 'info');
        if (this.opts.onClipboardWritten) this.opts.onClipboardWritten(text);
      },
      (err) => this.opts.notify(`Copy failed: clipboard write was refused (${errorText(err)})`, 'error'),
    );
  }
}

/**
 * The hidden textarea that holds the screen's keyboard focus so an IME can compose in it:
 * transparent, at the screen's top left (where IME candidate windows then appear).
 * @param {HTMLElement} root
 */
function makeImeSink(root) {
  const ime = document.createElement('textarea');
  ime.id = 'ime-sink';
  ime.tabIndex = -1;
  ime.setAttribute('aria-hidden', 'true');
  ime.autocomplete = 'off';
  ime.spellcheck = false;
  ime.style.cssText = 'position:absolute;left:0;top:0;width:1px;height:1px;opacity:0;'
    + 'border:0;padding:0;margin:0;resize:none;overflow:hidden;z-index:-1;caret-color:transparent;';
  root.appendChild(ime);
  return ime;
}

/**
 * The Latin letter of a shortcut, by physical key first so that Ctrl+V works on non-Latin layouts.
 * @param {KeyboardEvent} e
 */
function shortcutLetter(e) {
  if (/^Key[A-Z]$/.test(e.code)) return e.code.slice(3).toLowerCase();
  return e.key.length === 1 ? e.key.toLowerCase() : '';
}

/**
 * The key as the remote page should see it. On macOS Cmd is sent as Control (the modifier
 * bitmask does the same), so shortcuts like Cmd+A mean Ctrl+A in the Linux Chromium.
 * @param {KeyboardEvent} e
 * @returns {{key: string, code: string}}
 */
function translateKey(e) {
  if (IS_MAC && e.key === 'Meta') {
    return { key: 'Control', code: e.code === 'MetaRight' ? 'ControlRight' : 'ControlLeft' };
  }
  return { key: e.key, code: e.code };
}

/** @param {string} key */
function isModifierKey(key) {
  return key === 'Control' || key === 'Shift' || key === 'Alt' || key === 'Meta' || key === 'AltGraph';
}

/** @param {unknown} err */
function errorText(err) {
  return err instanceof Error ? err.message : String(err);
}
