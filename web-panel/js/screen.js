// @ts-check
/**
 * screen.js — owns the `<canvas>`: decoding and drawing JPEG frames (latest frame wins, never a
 * queue), watching its size (ResizeObserver, debounced), and turning mouse and wheel events on
 * it into `input` messages in page-viewport CSS pixels. Moves and wheel deltas are coalesced to
 * one message per animation frame; presses and releases flush them first so order is kept.
 * Keyboard and clipboard are keyboard.js's.
 */

import { modifiersOf } from './keyboard.js';

const RESIZE_DEBOUNCE_MS = 150;
const LINE_HEIGHT_PX = 16;

/** @typedef {{width: number, height: number}} Size */
/** @typedef {'left' | 'middle' | 'right'} Button */

/** DOM `MouseEvent.button` → the daemon's button names. */
/** @type {Record<number, Button>} */
const BUTTONS = { 0: 'left', 1: 'middle', 2: 'right' };

/**
 * @typedef {Object} ScreenOptions
 * @property {HTMLCanvasElement} canvas
 * @property {() => Size | null} getViewport   latest `viewport` from the daemon, if any
 * @property {(type: string, fields: object, modifiers: number) => void} sendInput
 * @property {(size: Size) => void} onResize   canvas CSS size settled on a new value
 * @property {() => void} onFrameShown
 */

export class Screen {
  /** @param {ScreenOptions} opts */
  constructor(opts) {
    this.opts = opts;
    this.canvas = opts.canvas;
    this.ctx = /** @type {CanvasRenderingContext2D} */ (this.canvas.getContext('2d', { alpha: false }));

    // ---- frames ----
    this.decoding = false;
    /** @type {ArrayBuffer | null} newest frame that arrived while another was decoding */
    this.pending = null;
    /** Bumped by `clear`, so a decode in flight for an old session is not drawn. */
    this.generation = 0;
    this.framesReceived = 0;
    this.framesDropped = 0;
    this.framesShown = 0;

    // ---- pointer ----
    /** Buttons pressed on the canvas whose release we still owe, in press order. @type {Button[]} */
    this.pressed = [];
    /** @type {{x: number, y: number, modifiers: number} | null} */
    this.pendingMove = null;
    /** @type {{x: number, y: number, dx: number, dy: number, modifiers: number} | null} */
    this.pendingWheel = null;
    this.rafId = 0;
    this.lastPos = { x: 0, y: 0 };

    this.bindPointer();
    this.bindResize();
  }

  /** The canvas's CSS size in whole pixels (what the page viewport should be). @returns {Size} */
  size() {
    const r = this.canvas.getBoundingClientRect();
    return { width: Math.max(0, Math.floor(r.width)), height: Math.max(0, Math.floor(r.height)) };
  }

  // ------------------------------------------------------------------ frames

  /**
   * A binary message from the daemon: one JPEG. Decoded off the main thread; if a decode is
   * already running the frame waits in a one-slot buffer that later frames overwrite.
   * @param {ArrayBuffer} data
   */
  pushFrame(data) {
    this.framesReceived += 1;
    if (this.decoding) {
      if (this.pending) this.framesDropped += 1;
      this.pending = data;
      return;
    }
    void this.decode(data);
  }

  /** Forget the picture (new channel or session). */
  clear() {
    this.generation += 1;
    this.pending = null;
    this.ctx.fillStyle = '#0e0f11';
    this.ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
  }

  /**
   * @private
   * @param {ArrayBuffer} data
   */
  async decode(data) {
    this.decoding = true;
    const gen = this.generation;
    try {
      const bitmap = await createImageBitmap(new Blob([data], { type: 'image/jpeg' }));
      if (gen === this.generation) {
        this.draw(bitmap);
      }
      bitmap.close();
    } catch (err) {
      this.framesDropped += 1;
      console.warn('porthole: could not decode a frame', err);
    } finally {
      this.decoding = false;
      const next = this.pending;
      this.pending = null;
      if (next) void this.decode(next);
    }
  }

  /**
   * @private
   * @param {ImageBitmap} bitmap
   */
  draw(bitmap) {
    const c = this.canvas;
    // The backing store follows the frame; CSS stretches it over the canvas box. The frame is
    // the whole page viewport, so the pointer mapping (offset / box size × viewport) stays exact
    // even while a resize is in flight.
    if (c.width !== bitmap.width || c.height !== bitmap.height) {
      c.width = bitmap.width;
      c.height = bitmap.height;
    }
    this.ctx.drawImage(bitmap, 0, 0);
    this.framesShown += 1;
    this.opts.onFrameShown();
  }

  // ------------------------------------------------------------------ resize

  /** @private */
  bindResize() {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    /** @type {Size} */
    let last = this.size();
    const ro = new ResizeObserver(() => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const now = this.size();
        if (now.width === last.width && now.height === last.height) return;
        last = now;
        if (now.width > 0 && now.height > 0) this.opts.onResize(now);
      }, RESIZE_DEBOUNCE_MS);
    });
    ro.observe(this.canvas);
  }

  // ------------------------------------------------------------------ pointer

  /**
   * Event position → page-viewport CSS pixels, clamped to the viewport.
   * @private
   * @param {MouseEvent} e
   */
  toPage(e) {
    const r = this.canvas.getBoundingClientRect();
    const vp = this.viewport();
    const w = r.width || 1;
    const h = r.height || 1;
    const x = clamp(((e.clientX - r.left) / w) * vp.width, 0, Math.max(0, vp.width - 1));
    const y = clamp(((e.clientY - r.top) / h) * vp.height, 0, Math.max(0, vp.height - 1));
    return { x: round2(x), y: round2(y) };
  }

  /** Latest viewport from the daemon, else the canvas size. @private @returns {Size} */
  viewport() {
    const vp = this.opts.getViewport();
    if (vp && vp.width > 0 && vp.height > 0) return vp;
    const s = this.size();
    return { width: s.width || 1, height: s.height || 1 };
  }

  /** The button to report with a move: the first still-held one, else "none". @private */
  heldButton() {
    return this.pressed.length ? this.pressed[0] : 'none';
  }

  /** @private */
  bindPointer() {
    const c = this.canvas;

    c.addEventListener('mousedown', (e) => {
      const button = BUTTONS[e.button];
      e.preventDefault(); // no text selection, no middle-click autoscroll, focus is ours
      c.focus({ preventScroll: true });
      if (!button) return;
      const p = this.toPage(e);
      this.flush();
      if (!this.pressed.includes(button)) this.pressed.push(button);
      this.lastPos = p;
      this.opts.sendInput('mousedown', { x: p.x, y: p.y, button, click_count: e.detail || 1 }, modifiersOf(e));
    });

    // Moves and releases are watched on the window so a drag that leaves the canvas keeps going
    // and its release is never lost.
    window.addEventListener('mousemove', (e) => {
      if (this.pressed.length && e.buttons === 0) {
        // A release happened somewhere we could not see (another window): settle it.
        this.releaseAll();
      }
      // Inside a shadow root the window sees the host element as the target: ask the path.
      if (origin(e) !== c && !this.pressed.length) return;
      const p = this.toPage(e);
      this.lastPos = p;
      this.pendingMove = { x: p.x, y: p.y, modifiers: modifiersOf(e) };
      this.schedule();
    });

    window.addEventListener('mouseup', (e) => {
      const button = BUTTONS[e.button];
      if (!button || !this.pressed.includes(button)) return;
      if (origin(e) === c) e.preventDefault();
      const p = this.toPage(e);
      this.flush();
      this.pressed = this.pressed.filter((b) => b !== button);
      this.lastPos = p;
      this.opts.sendInput('mouseup', { x: p.x, y: p.y, button, click_count: e.detail || 1 }, modifiersOf(e));
    });

    window.addEventListener('blur', () => this.releaseAll());

    c.addEventListener('contextmenu', (e) => e.preventDefault());

    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      const vp = this.viewport();
      let dx = e.deltaX;
      let dy = e.deltaY;
      if (e.deltaMode === WheelEvent.DOM_DELTA_LINE) {
        dx *= LINE_HEIGHT_PX;
        dy *= LINE_HEIGHT_PX;
      } else if (e.deltaMode === WheelEvent.DOM_DELTA_PAGE) {
        dx *= vp.width;
        dy *= vp.height;
      }
      const p = this.toPage(e);
      const modifiers = modifiersOf(e);
      const w = this.pendingWheel;
      if (w && w.modifiers === modifiers) {
        w.x = p.x;
        w.y = p.y;
        w.dx += dx;
        w.dy += dy;
      } else {
        if (w) this.flush();
        this.pendingWheel = { x: p.x, y: p.y, dx, dy, modifiers };
      }
      this.schedule();
    }, { passive: false });
  }

  /** Release every button we pressed (window blur, lost mouseup). */
  releaseAll() {
    if (!this.pressed.length) return;
    this.flush();
    const { x, y } = this.lastPos;
    for (const button of this.pressed) {
      this.opts.sendInput('mouseup', { x, y, button, click_count: 1 }, 0);
    }
    this.pressed = [];
  }

  /** @private */
  schedule() {
    if (!this.rafId) this.rafId = requestAnimationFrame(() => { this.rafId = 0; this.flush(); });
  }

  /**
   * Send the coalesced move and wheel now. Called before any press, release or key so the
   * daemon sees events in the order the user made them.
   */
  flush() {
    const m = this.pendingMove;
    if (m) {
      this.pendingMove = null;
      this.opts.sendInput('mousemove', { x: m.x, y: m.y, button: this.heldButton() }, m.modifiers);
    }
    const w = this.pendingWheel;
    if (w) {
      this.pendingWheel = null;
      if (w.dx !== 0 || w.dy !== 0) {
        this.opts.sendInput('scroll', { x: w.x, y: w.y, delta_x: round2(w.dx), delta_y: round2(w.dy) }, w.modifiers);
      }
    }
  }
}

/**
 * Where an event really began (`target` is retargeted to the host outside a shadow root).
 * @param {Event} e
 */
function origin(e) {
  const path = e.composedPath();
  return path.length ? path[0] : e.target;
}

/**
 * @param {number} v
 * @param {number} lo
 * @param {number} hi
 */
function clamp(v, lo, hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

/** @param {number} v */
function round2(v) {
  return Math.round(v * 100) / 100;
}
