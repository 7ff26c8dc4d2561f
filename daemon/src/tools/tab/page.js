// Porthole's in-page helper for the MCP tools, installed once per document in Porthole's
// isolated world (tools/world.rs), never the page's own; idempotent.
// Keeps element refs for the life of one document: `e<n>` → element, element → ref. A ref
// whose element is gone, or that this document never issued, is reported, never guessed.
(() => {
  const KEY = Symbol.for('porthole.tools');
  if (globalThis[KEY]) return globalThis[KEY];
  const refs = new Map();
  const byEl = new WeakMap();
  // Fields the vault typed a secret into (a password or a one-time code), whatever their type:
  // no reading tool ever matches on or shows their value (DESIGN.md §19a).
  const secrets = new WeakSet();
  // Whether a field's value is a secret: a password field, a one-time-code field, or one the
  // vault filled. Such a field reads as filled, never by content.
  const isSecret = (el) => {
    if (secrets.has(el)) return true;
    if (el.localName !== 'input') return false;
    if ((el.getAttribute('type') || '').toLowerCase() === 'password') return true;
    return (el.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/).includes('one-time-code');
  };
  // Region refs (screenshot badges over a canvas or video): ref → {el, fx, fy}, the point a
  // click lands on as fractions of the element's box.
  const regions = new Map();
  let next = 1;
  const INTERACTIVE_ROLES = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio',
    'combobox', 'listbox', 'option', 'slider', 'spinbutton', 'switch', 'tab', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'treeitem']);
  const LANDMARKS = new Set(['main', 'navigation', 'banner', 'contentinfo', 'form', 'dialog',
    'region', 'search', 'complementary', 'heading', 'iframe', 'alertdialog']);
  // Sections left out of a snapshot when unnamed (their content stays, one level up).
  const SECTIONS = new Set(['main', 'navigation', 'banner', 'contentinfo', 'form', 'search',
    'complementary', 'region']);
  // Ends a snapshot line before its off-screen mark (↑↓←→), which snapshot.rs turns into text.
  const MARK = '\u0001';
  const clip = (s, n) => { s = (s || '').replace(/\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n - 1) + '…' : s; };
  const quote = (s) => JSON.stringify(s);

  function refFor(el, base) {
    let r = byEl.get(el);
    if (r && refs.get(r) === el) return r;
    next = Math.max(next, base || 0);
    r = 'e' + next++;
    refs.set(r, el);
    byEl.set(el, r);
    return r;
  }

  function role(el) {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (explicit) return explicit;
    const tag = el.localName;
    switch (tag) {
      case 'a': return el.hasAttribute('href') ? 'link' : '';
      case 'button': case 'summary': return 'button';
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'textarea': return 'textbox';
      case 'option': return 'option';
      case 'img': return 'img';
      case 'nav': return 'navigation';
      case 'main': return 'main';
      case 'header': return 'banner';
      case 'footer': return 'contentinfo';
      case 'form': return 'form';
      case 'dialog': return 'dialog';
      case 'ul': case 'ol': return 'list';
      case 'li': return 'listitem';
      case 'table': return 'table';
      case 'tr': return 'row';
      case 'td': return 'cell';
      case 'th': return 'columnheader';
      case 'p': return 'paragraph';
      case 'iframe': case 'frame': return 'iframe';
      case 'label': return 'label';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'section': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : '';
      case 'input': {
        const t = (el.getAttribute('type') || 'text').toLowerCase();
        return ({ checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton',
          search: 'searchbox', button: 'button', submit: 'button', reset: 'button', image: 'button',
          hidden: '' })[t] ?? 'textbox';
      }
    }
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'textbox';
    return '';
  }

  function isInteractive(el, r) {
    if (INTERACTIVE_ROLES.has(r)) return true;
    if (el.hasAttribute('onclick') || el.isContentEditable) return true;
    const ti = el.getAttribute('tabindex');
    return ti !== null && Number(ti) >= 0;
  }

  // A label's own words, without the text of the controls inside it (a select's options).
  function labelText(label) {
    let out = '';
    const walk = (n) => {
      for (const c of n.childNodes) {
        if (c.nodeType === 3) out += c.textContent;
        else if (c.nodeType === 1 && !['select', 'textarea', 'input', 'option', 'script', 'style'].includes(c.localName)) walk(c);
      }
    };
    walk(label);
    return out;
  }

  // Rows, cells and labels with elements inside are named by what is inside (listed under
  // them), not again on their own line.
  const CONTAINERS = new Set(['listitem', 'cell', 'label']);
  const namedByChildren = (el, r) => CONTAINERS.has(r) && el.children.length > 0;

  function name(el, r) {
    const doc = el.ownerDocument;
    const label = el.getAttribute('aria-label');
    if (label) return clip(label, 100);
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const t = by.split(/\s+/).map((id) => doc.getElementById(id)?.textContent || '').join(' ');
      if (t.trim()) return clip(t, 100);
    }
    if (el.labels && el.labels.length) return clip([...el.labels].map(labelText).join(' '), 100);
    if (el.localName === 'img') return clip(el.getAttribute('alt') || el.getAttribute('title') || '', 100);
    if (el.localName === 'iframe') return clip(el.getAttribute('title') || el.getAttribute('name') || '', 100);
    if (el.localName === 'input' && ['button', 'submit', 'reset'].includes(el.type)) return clip(el.value, 100);
    if (namedByChildren(el, r)) return '';
    if (['link', 'button', 'heading', 'option', 'tab', 'menuitem', 'cell', 'columnheader', 'listitem', 'label', 'paragraph', 'treeitem'].includes(r)) {
      return clip(el.innerText || el.textContent || el.getAttribute('title') || '', 100);
    }
    return clip(el.getAttribute('title') || el.getAttribute('placeholder') || '', 100);
  }

  function visible(el) {
    if (el.getAttribute('aria-hidden') === 'true') return false;
    if (typeof el.checkVisibility === 'function') {
      if (!el.checkVisibility({ visibilityProperty: true })) {
        // An unrendered element may still have rendered content through a shadow root.
        return false;
      }
      return true;
    }
    const s = el.ownerDocument.defaultView.getComputedStyle(el);
    return s.display !== 'none' && s.visibility !== 'hidden';
  }

  // `full`: also link targets (filter "all"); the interactive view leaves them out for size.
  function details(el, r, full) {
    const out = [];
    if (r === 'heading') out.push('level=' + el.localName.slice(1));
    if (r === 'checkbox' || r === 'radio' || r === 'switch') {
      if (el.checked || el.getAttribute('aria-checked') === 'true') out.push('checked');
    }
    if (el.localName === 'select') {
      const sel = [...el.selectedOptions].map((o) => clip(o.text, 60));
      out.push('value=' + quote(sel.join(', ')));
    } else if ((r === 'textbox' || r === 'searchbox' || r === 'spinbutton' || r === 'slider') && 'value' in el) {
      if (el.value) out.push('value=' + quote(clip(isSecret(el) ? '••••' : el.value, 100)));
      const ph = el.getAttribute('placeholder');
      if (ph) out.push('placeholder=' + quote(clip(ph, 60)));
    } else if (r === 'textbox' && el.isContentEditable) {
      const t = clip(el.innerText, 100);
      if (t) out.push('value=' + quote(t));
    }
    if (el.disabled || el.getAttribute('aria-disabled') === 'true') out.push('disabled');
    if (r === 'link' && full) { const h = el.getAttribute('href'); if (h) out.push('href=' + quote(clip(h, 120))); }
    if (el.getAttribute('aria-expanded')) out.push('expanded=' + el.getAttribute('aria-expanded'));
    if (el.localName === 'option' && el.selected) out.push('selected');
    return out.length ? ' ' + out.join(' ') : '';
  }

  // Children as rendered: an open shadow root's content (with slots resolved), else the DOM
  // children; iframes (same-origin) continue into their document.
  function children(node) {
    if (node.shadowRoot) return [...node.shadowRoot.childNodes];
    if (node.localName === 'slot') {
      const assigned = node.assignedNodes({ flatten: true });
      return assigned.length ? assigned : [...node.childNodes];
    }
    return [...node.childNodes];
  }

  // The part of the top-level viewport this document shows, in its own CSS pixels: its own
  // viewport, cut to `view` (the top viewport as an out-of-process frame sees it, from Rust).
  function viewOf(view) {
    const own = { x: 0, y: 0, w: innerWidth, h: innerHeight };
    if (!view) return own;
    const x = Math.max(own.x, view.x), y = Math.max(own.y, view.y);
    return { x, y, w: Math.min(own.x + own.w, view.x + view.w) - x, h: Math.min(own.y + own.h, view.y + view.h) - y };
  }

  // Where an element lies outside `view`: '↑' above, '↓' below, '←' left, '→' right, '' in view.
  // Same-origin frames add their offsets, so `view` is in the top document's pixels.
  function offscreen(el, view) {
    const r = el.getBoundingClientRect();
    let dx = 0, dy = 0;
    for (let w = el.ownerDocument.defaultView; w && w.frameElement; w = w.parent) {
      const f = w.frameElement.getBoundingClientRect();
      dx += f.left + w.frameElement.clientLeft; dy += f.top + w.frameElement.clientTop;
    }
    if (r.bottom + dy <= view.y) return '↑';
    if (r.top + dy >= view.y + view.h) return '↓';
    if (r.right + dx <= view.x) return '←';
    if (r.left + dx >= view.x + view.w) return '→';
    return '';
  }

  // Elements each reader saw at its last read_page of this document (reader = agent id), so
  // the next read can mark what is new.
  const seenBy = new Map();

  function snapshot(opts) {
    const all = opts.filter === 'all';
    const maxDepth = opts.depth || 1e9;
    const lines = [];
    const frames = [];
    const view = viewOf(opts.view);
    const prev = opts.reader ? seenBy.get(opts.reader) : null;
    const seen = new WeakSet();
    let off = 0, fresh = 0;
    const walk = (node, depth) => {
      for (const child of children(node)) {
        if (child.nodeType === 3) {
          if (all && depth < maxDepth) {
            const parent = child.parentElement;
            const parentRole = parent ? role(parent) : '';
            // Text of a named element is already its name.
            if (!['link', 'button', 'heading', 'option', 'label', 'listitem', 'cell', 'columnheader', 'paragraph', 'tab', 'menuitem'].includes(parentRole) || namedByChildren(parent, parentRole)) {
              const t = clip(child.textContent, 200);
              if (t) lines.push(' '.repeat(depth) + '- text: ' + quote(t));
            }
          }
          continue;
        }
        if (child.nodeType !== 1) continue;
        const el = child;
        const tag = el.localName;
        if (['script', 'style', 'noscript', 'template', 'head', 'meta', 'link'].includes(tag)) continue;
        if (!visible(el) && !el.shadowRoot && tag !== 'slot') continue;
        const r = role(el);
        const interactive = isInteractive(el, r);
        let show = r === 'iframe' || (all ? (r !== '' || interactive) : (interactive || LANDMARKS.has(r)));
        // An unnamed page section (header, main, footer, an unlabelled nav or form) says
        // little: no line of its own and no indentation for what is inside it.
        const n = show ? name(el, r) : '';
        if (show && !n && !interactive && SECTIONS.has(r)) show = false;
        seen.add(el);
        let inner = depth;
        if (show && depth < maxDepth) {
          const ref = refFor(el, opts.base);
          let marks = '';
          if (prev && !prev.has(el)) { marks += ' new'; fresh++; }
          // Off-screen: after MARK, for snapshot.rs to mark once per run of lines.
          const where = offscreen(el, view);
          if (where) { marks += MARK + where; off++; }
          lines.push(' '.repeat(depth) + '- ' + (r || 'generic') + (n ? ' ' + quote(n) : '') + ' [ref=' + ref + ']' + details(el, r, all) + marks);
          inner = depth + 1;
          if (r === 'iframe') {
            let doc = null;
            try { doc = el.contentDocument; } catch (_) { doc = null; }
            if (doc && doc.documentElement) {
              if (inner < maxDepth) walk(doc.documentElement, inner);
            } else {
              frames.push({ ref, src: el.src || '', line: lines.length, depth: inner });
              lines.push('\u0000frame:' + ref);
            }
            continue;
          }
          // A named leaf (link, button …) says all there is to say.
          if (['link', 'button', 'option', 'heading'].includes(r) && !all) continue;
        }
        if (inner < maxDepth || !show) walk(el, inner);
      }
    };
    const root = document.documentElement;
    if (root) walk(root, opts.indent || 0);
    if (opts.reader) seenBy.set(opts.reader, seen);
    return { lines, frames, next, off, fresh, first: !prev, title: document.title, url: location.href };
  }

  function describe(el) {
    let s = el.localName;
    if (el.id) s += '#' + el.id;
    const cls = (el.getAttribute('class') || '').trim().split(/\s+/).filter(Boolean).slice(0, 2);
    if (cls.length) s += '.' + cls.join('.');
    const t = clip(el.innerText || '', 40);
    return t ? s + ' ' + quote(t) : s;
  }

  // The innermost element at (x, y) of a document, through open shadow roots.
  function hitAt(doc, x, y) {
    let hit = doc.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }

  function composedContains(el, node) {
    for (let n = node; n; n = n.parentNode || (n.host ?? null)) if (n === el) return true;
    return false;
  }

  function lookup(ref) {
    const region = regions.get(ref);
    const el = region ? region.el : refs.get(ref);
    if (!el) return { error: 'unknown' };
    if (!el.isConnected) return { error: 'stale' };
    return region ? { el, at: [region.fx, region.fy] } : { el };
  }

  // A ref for one region of an element the tree cannot see into (a canvas): a click by it
  // lands at (fx, fy) of the element's box.
  function regionRef(el, fx, fy, base) {
    next = Math.max(next, base || 0);
    const r = 'e' + next++;
    regions.set(r, { el, fx, fy });
    return r;
  }

  // Scrolls the element into view and returns its centre in this frame's top-level viewport,
  // refusing when something else covers it.
  function point(ref) {
    const found = lookup(ref);
    if (found.error) return found;
    const el = found.el;
    const view = el.ownerDocument.defaultView;
    let rect = el.getBoundingClientRect();
    if (rect.top < 0 || rect.left < 0 || rect.bottom > view.innerHeight || rect.right > view.innerWidth) {
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      rect = el.getBoundingClientRect();
    }
    if (rect.width === 0 && rect.height === 0) return { error: 'invisible', what: describe(el) };
    const [fx, fy] = found.at || [0.5, 0.5];
    let x = rect.left + rect.width * fx;
    let y = rect.top + rect.height * fy;
    const hit = hitAt(el.ownerDocument, x, y);
    const ok = hit && (composedContains(el, hit) || (hit.control === el) || (el.labels && [...el.labels].includes(hit)));
    if (!ok) return { error: 'covered', what: describe(el), by: hit ? describe(hit) : 'nothing (outside the viewport)' };
    // Same-origin frames: add each frame's content-box offset.
    for (let w = view; w.frameElement; w = w.parent) {
      const f = w.frameElement;
      const fr = f.getBoundingClientRect();
      const cs = w.parent.getComputedStyle(f);
      x += fr.left + f.clientLeft + parseFloat(cs.paddingLeft);
      y += fr.top + f.clientTop + parseFloat(cs.paddingTop);
    }
    return { x, y, what: describe(el) };
  }

  // The content-box origin of an iframe (by ref) in the top-level viewport.
  function frameOrigin(ref) {
    const found = lookup(ref);
    if (found.error) return found;
    const f = found.el;
    const fr = f.getBoundingClientRect();
    const view = f.ownerDocument.defaultView;
    const cs = view.getComputedStyle(f);
    let x = fr.left + f.clientLeft + parseFloat(cs.paddingLeft);
    let y = fr.top + f.clientTop + parseFloat(cs.paddingTop);
    for (let w = view; w.frameElement; w = w.parent) {
      const g = w.frameElement.getBoundingClientRect();
      x += g.left + w.frameElement.clientLeft;
      y += g.top + w.frameElement.clientTop;
    }
    return { x, y, w: f.clientWidth, h: f.clientHeight };
  }

  // For each viewport point [x, y]: whether the <iframe> `ref` (of this document, or of a
  // same-origin frame in it) is what shows there, and not something drawn over it.
  function frameShows(ref, points) {
    const found = lookup(ref);
    if (found.error) return points.map(() => false);
    return points.map(([x, y]) => {
      let hit = hitAt(document, x, y);
      // Through same-origin frames, in each one's own coordinates.
      while (hit && hit !== found.el && hit.localName === 'iframe') {
        let inner = null;
        try { inner = hit.contentDocument; } catch (e) { inner = null; }
        if (!inner) break;
        const b = hit.getBoundingClientRect();
        const cs = hit.ownerDocument.defaultView.getComputedStyle(hit);
        x -= b.left + hit.clientLeft + parseFloat(cs.paddingLeft);
        y -= b.top + hit.clientTop + parseFloat(cs.paddingTop);
        hit = hitAt(inner, x, y);
      }
      return hit === found.el;
    });
  }

  function fire(el, type) { el.dispatchEvent(new Event(type, { bubbles: true, composed: true })); }

  function fill(ref, value) {
    const found = lookup(ref);
    if (found.error) return found;
    const el = found.el;
    const r = role(el);
    const tag = el.localName;
    if (el.disabled) return { error: 'refused', message: describe(el) + ' is disabled' };
    if (tag === 'select') {
      const wanted = Array.isArray(value) ? value.map(String) : [String(value)];
      const opts = [...el.options];
      const picked = [];
      for (const w of wanted) {
        const o = opts.find((o) => o.value === w) || opts.find((o) => o.text.trim() === w.trim()) ||
          opts.find((o) => o.text.trim().toLowerCase() === w.trim().toLowerCase());
        if (!o) return { error: 'refused', message: 'the select ' + describe(el) + ' has no option ' + quote(w) + '; options: ' + opts.map((o) => quote(o.text.trim())).join(', ') };
        picked.push(o);
      }
      if (picked.length > 1 && !el.multiple) return { error: 'refused', message: describe(el) + ' takes one option, got ' + picked.length };
      for (const o of opts) o.selected = picked.includes(o);
      el.focus();
      fire(el, 'input'); fire(el, 'change');
      return { ok: 'selected ' + picked.map((o) => quote(o.text.trim())).join(', ') + ' in ' + describe(el) };
    }
    if (r === 'checkbox' || r === 'radio' || r === 'switch') {
      if (typeof value !== 'boolean') return { error: 'refused', message: describe(el) + ' is a ' + r + ': give value true or false' };
      if (el.checked !== value) el.click();
      if (el.checked !== value) return { error: 'refused', message: 'the page kept ' + describe(el) + (el.checked ? ' checked' : ' unchecked') };
      return { ok: (value ? 'checked ' : 'unchecked ') + describe(el) };
    }
    if (tag === 'input' || tag === 'textarea') {
      if (typeof value === 'boolean' || Array.isArray(value)) return { error: 'refused', message: describe(el) + ' is a text field: give text' };
      el.focus();
      const proto = tag === 'input' ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
      Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, String(value));
      fire(el, 'input'); fire(el, 'change');
      return { ok: 'set ' + describe(el) + ' to ' + quote(String(value)) };
    }
    if (el.isContentEditable) {
      el.focus();
      el.textContent = String(value);
      fire(el, 'input');
      return { ok: 'set ' + describe(el) + ' to ' + quote(String(value)) };
    }
    return { error: 'refused', message: describe(el) + ' (' + (r || tag) + ') is not a form field; use computer to click or type' };
  }

  function find(query, max, base) {
    const q = query.toLowerCase().trim();
    const words = q.split(/\s+/).filter(Boolean);
    const out = [];
    const walk = (node, depth) => {
      for (const child of children(node)) {
        if (out.length >= max) return;
        if (child.nodeType !== 1) continue;
        const el = child;
        if (['script', 'style', 'noscript', 'template', 'head'].includes(el.localName)) continue;
        if (!visible(el) && !el.shadowRoot && el.localName !== 'slot') continue;
        const r = role(el);
        if (r === 'iframe') {
          let doc = null;
          try { doc = el.contentDocument; } catch (_) { doc = null; }
          if (doc && doc.documentElement) walk(doc.documentElement, depth + 1);
          continue;
        }
        if (r && (isInteractive(el, r) || LANDMARKS.has(r) || ['img', 'label', 'paragraph', 'listitem', 'cell'].includes(r))) {
          const n = name(el, r);
          const hay = [n, r, el.getAttribute('placeholder') || '', el.getAttribute('name') || '', el.id || '', el.getAttribute('title') || '', 'value' in el && typeof el.value === 'string' && !isSecret(el) ? el.value : ''].join(' ').toLowerCase();
          if (words.every((w) => hay.includes(w))) {
            out.push('- ' + r + (n ? ' ' + quote(n) : '') + ' [ref=' + refFor(el, base) + ']' + details(el, r, true));
          }
        }
        walk(el, depth + 1);
      }
    };
    walk(document.documentElement, 0);
    return { lines: out, next };
  }

  function text() {
    const parts = [];
    const add = (doc) => {
      if (doc.body) parts.push(doc.body.innerText);
      for (const f of doc.querySelectorAll('iframe')) {
        try { if (f.contentDocument) add(f.contentDocument); } catch (_) {}
      }
    };
    add(document);
    return parts.join('\n');
  }

  // For wait_for_text: the texts of the page, its same-origin frames and open shadow roots,
  // the page's own first; lazily, so a poll that finds the text early walks no further.
  function* texts() {
    yield text();
    const roots = [document];
    while (roots.length) {
      const root = roots.pop();
      for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot) {
          yield el.shadowRoot.textContent || '';
          roots.push(el.shadowRoot);
        }
        if (el.localName === 'iframe') { try { if (el.contentDocument) roots.push(el.contentDocument); } catch (_) {} }
      }
    }
  }

  function hasText(needle) {
    for (const t of texts()) { if (t.includes(needle)) return true; }
    return false;
  }

  // Where `needle` is in the page's texts: up to 20 stretches of it with `room` characters on
  // each side, for the daemon to match again with filled secrets scrubbed (no oracle).
  function textAround(needle, room) {
    const out = [];
    for (const t of texts()) {
      for (let i = t.indexOf(needle); i >= 0 && out.length < 20; i = t.indexOf(needle, i + 1)) {
        out.push(t.slice(Math.max(0, i - room), i + needle.length + room));
      }
    }
    return out;
  }

  // A selector that reads values (`[value^=…]`) never matches a secret field: a page that
  // mirrors a password into its `value` attribute must not answer guesses at it.
  function hasSelector(sel) {
    const readsValue = /value/i.test(sel);
    const roots = [document];
    while (roots.length) {
      const root = roots.pop();
      if (readsValue) {
        for (const el of root.querySelectorAll(sel)) { if (!isSecret(el)) return true; }
      } else if (root.querySelector(sel)) return true;
      for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot) roots.push(el.shadowRoot);
        if (el.localName === 'iframe') { try { if (el.contentDocument) roots.push(el.contentDocument); } catch (_) {} }
      }
    }
    return false;
  }

  // wait_for_*: which of a selector and a text (either may be null) this document has.
  const has = (sel, needle) => ({ selector: sel != null && hasSelector(sel), text: needle != null && hasText(needle) });

  // Resolves once `frames` rendering frames in a row passed without a DOM mutation (so what an
  // action changed, synchronously or in a follow-up task or frame, is in place), or after
  // `maxMs`. A hidden document gets no animation frames; 16 ms timers stand in for them.
  // The page's current animation-frame request, timer and idle-callback ids, read by asking
  // for one of each and cancelling it. Each counts per document across worlds, so a later id
  // that is not the next one says the page asked for one in between: work that may change the
  // page after the next frame.
  function marks() {
    const r = requestAnimationFrame(() => {}); cancelAnimationFrame(r);
    const t = setTimeout(() => {}, 0); clearTimeout(t);
    const i = requestIdleCallback(() => {}); cancelIdleCallback(i);
    return [r, t, i];
  }

  // Where the page is, and its marks, before an action.
  const here = () => ({ url: location.href, title: document.title, marks: marks() });

  // A mouse button release the tools are about to cause (or, with `kind` 'input', the text
  // typed after a click), armed before its input is sent, so a DOM-quiet wait sent right
  // behind the input (not after its answer: one round trip less) begins once the page has
  // seen it (`quiet`'s `afterRelease`).
  let release = null;
  const RELEASE_MAX_MS = 400;
  // A field typed text lands in (and raises `input` in).
  const NOT_TYPED = ['checkbox', 'radio', 'file', 'button', 'submit', 'reset', 'image', 'range', 'color'];
  const typable = (el) => !el.disabled && !el.readOnly && (el.isContentEditable || el.localName === 'textarea' || (el.localName === 'input' && !NOT_TYPED.includes(el.type)));
  // Armed only for an element of this very document (not of a frame inside it, whose events
  // this window never sees), and for text only in a field that takes it; false otherwise.
  function armRelease(ref, kind) {
    const found = lookup(ref);
    if (!found.el || found.el.ownerDocument !== document) return false;
    const type = kind === 'input' ? 'input' : 'mouseup';
    if (type === 'input' && !typable(found.el)) return false;
    if (release) release.off();
    const r = { seen: false, wake: null };
    const on = () => { r.seen = true; if (r.wake) r.wake(); };
    addEventListener(type, on, { capture: true, once: true });
    r.off = () => removeEventListener(type, on, { capture: true });
    release = r;
    return true;
  }

  // Resolves once the DOM stayed unchanged through `frames` rendering frames in a row (or after
  // `maxMs`). With `since` (the `marks()` read before an action, or 'now') one quiet frame is enough
  // while the page has asked for no animation frame, timer or idle callback since then:
  // nothing is scheduled that could change it later. With `afterRelease`, it begins once the
  // armed release was seen (at most RELEASE_MAX_MS later: a page may swallow the event).
  function quiet(frames, maxMs, since, afterRelease) {
    const armed = afterRelease ? release : null;
    if (afterRelease) release = null;
    return new Promise((resolve) => {
      let calm = 0, dirty = false, finished = false;
      // 'now': the marks as the wait begins (after a navigation, whose new document had none
      // read before it): work the page asks for from here on still makes it wait longer.
      const from = since === 'now' ? marks() : since;
      let last = from || null, busy = !from;
      const saw = (kind, id) => { if (last && id !== last[kind] + 1) busy = true; if (last) last[kind] = id; return id; };
      const probe = () => {
        const r = saw(0, requestAnimationFrame(() => {})); cancelAnimationFrame(r);
        const t = saw(1, setTimeout(() => {}, 0)); clearTimeout(t);
        const i = saw(2, requestIdleCallback(() => {})); cancelIdleCallback(i);
      };
      const obs = new MutationObserver(() => { dirty = true; });
      // Resolves with where the page is then, so the caller needs no second round trip.
      const done = () => { if (finished) return; finished = true; obs.disconnect(); clearTimeout(cap); resolve({ url: location.href, title: document.title, busy }); };
      const cap = saw(1, setTimeout(done, maxMs));
      const tick = () => {
        if (finished) return;
        if (!busy) probe();
        if (dirty) { dirty = false; calm = 0; } else if (++calm >= (busy ? frames : 1)) { done(); return; }
        next();
      };
      // The timeout after the frame lets tasks queued by the frame's callbacks run first.
      const next = () => document.hidden
        ? saw(1, setTimeout(tick, 16))
        : saw(0, requestAnimationFrame(() => saw(1, setTimeout(tick, 0))));
      const begin = () => {
        obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
        next();
      };
      if (!armed || armed.seen) { begin(); return; }
      const gaveUp = saw(1, setTimeout(() => { armed.off(); armed.wake = null; begin(); }, RELEASE_MAX_MS));
      armed.wake = () => { armed.wake = null; clearTimeout(gaveUp); begin(); };
    });
  }

  // upload_file: the file input behind a ref, and what it holds.
  function fileInput(ref) {
    const found = lookup(ref);
    if (found.error) return found;
    const el = found.el;
    if (el.localName !== 'input' || el.type !== 'file') {
      return { error: 'refused', message: 'Ref ' + ref + ' (' + describe(el) + ') is not a file input (<input type=file>); upload_file needs one. Use find "file" or read_page to get its ref.' };
    }
    if (el.disabled) return { error: 'refused', message: describe(el) + ' is disabled' };
    return { multiple: el.multiple, files: [...el.files].map((f) => ({ name: f.name, size: f.size })), what: describe(el) };
  }

  // Read-back after typing or filling: the value of the ref's element, or of the focused one
  // (through open shadow roots and same-origin frames) when `ref` is null.
  function readBack(ref) {
    let el;
    if (ref) {
      const found = lookup(ref);
      if (found.error) return found;
      el = found.el;
    } else {
      el = document.activeElement;
      for (;;) {
        if (el && el.shadowRoot && el.shadowRoot.activeElement) { el = el.shadowRoot.activeElement; continue; }
        let inner = null;
        try { inner = el && el.localName === 'iframe' && el.contentDocument ? el.contentDocument.activeElement : null; } catch (_) { inner = null; }
        if (inner) { el = inner; continue; }
        break;
      }
    }
    if (!el) return { kind: 'none' };
    const tag = el.localName;
    if (tag === 'select') return { kind: 'select' };
    if ((tag === 'input' && !['checkbox', 'radio', 'file', 'button', 'submit', 'reset', 'image'].includes(el.type)) || tag === 'textarea') {
      return { kind: 'field', value: el.value, secret: isSecret(el), what: describe(el) };
    }
    if (el.isContentEditable) return { kind: 'field', value: el.innerText, secret: false, what: describe(el) };
    return { kind: 'other' };
  }

  // upload_file where the browser cannot see the daemon's files (docker mode): the files are
  // built here from their bytes (base64) and set through a DataTransfer, then `input` and
  // `change` fire as after a person's pick.
  function setFiles(ref, files) {
    const checked = fileInput(ref);
    if (checked.error) return checked;
    return setFilesOf(lookup(ref).el, files);
  }

  function setFilesOf(el, files) {
    const dt = new DataTransfer();
    for (const f of files) {
      const bin = atob(f.data);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      dt.items.add(new File([bytes], f.name, { type: f.type }));
    }
    el.files = dt.files;
    fire(el, 'input'); fire(el, 'change');
    return { ok: true };
  }

  // screenshot {badges}: what can be clicked in the viewport, each with a ref and its box in
  // viewport CSS pixels (cut to the viewport). Interactive elements whose centre is not covered,
  // plus what hit-testing a grid finds that the tree misses: canvases, videos, and elements
  // drawn with a pointer cursor (the outermost of a run, as the cursor is inherited).
  function badges(base, max) {
    const W = innerWidth, H = innerHeight;
    const UNSEEN = ['canvas', 'video', 'embed', 'object'];
    const found = [];
    const have = new Set();
    // `frame`: where a same-origin iframe's content sits in the top viewport, and the part of
    // it that shows (its box, cut by the viewport).
    const TOP = { ox: 0, oy: 0, x0: 0, y0: 0, x1: W, y1: H };
    const add = (el, frame = TOP) => {
      if (!el || have.has(el) || found.length >= max) return;
      const fr = el.getBoundingClientRect();
      const r = { left: fr.left + frame.ox, top: fr.top + frame.oy, width: fr.width, height: fr.height,
        right: fr.right + frame.ox, bottom: fr.bottom + frame.oy };
      const x0 = Math.max(frame.x0, r.left), y0 = Math.max(frame.y0, r.top);
      const x1 = Math.min(frame.x1, r.right), y1 = Math.min(frame.y1, r.bottom);
      if (x1 - x0 < 2 || y1 - y0 < 2) return;
      have.add(el);
      const ro = role(el);
      if (UNSEEN.includes(el.localName) && !isInteractive(el, ro) && addRegions(el, r, x0, y0, x1, y1)) return;
      found.push({ ref: refFor(el, base), x: x0, y: y0, w: x1 - x0, h: y1 - y0,
        what: (ro || el.localName) + (name(el, ro) ? ' ' + quote(clip(name(el, ro), 40)) : '') });
    };
    // A canvas (or video, embed) the tree cannot see into, big enough for several targets:
    // a grid of regions of about REGION px, each its own badge and ref; its visible part only.
    const REGION = 100, MAX_SIDE = 8;
    const addRegions = (el, r, x0, y0, x1, y1) => {
      const cols = Math.min(MAX_SIDE, Math.round((x1 - x0) / REGION));
      const rows = Math.min(MAX_SIDE, Math.round((y1 - y0) / REGION));
      if (cols * rows < 2) return false;
      const cw = (x1 - x0) / Math.max(cols, 1), ch = (y1 - y0) / Math.max(rows, 1);
      for (let row = 0; row < Math.max(rows, 1); row++) {
        for (let col = 0; col < Math.max(cols, 1); col++) {
          if (found.length >= max) return true;
          const bx = x0 + col * cw, by = y0 + row * ch;
          const fx = (bx + cw / 2 - r.left) / r.width, fy = (by + ch / 2 - r.top) / r.height;
          found.push({ ref: regionRef(el, fx, fy, base), x: bx, y: by, w: cw, h: ch,
            what: `${el.localName} region row ${row + 1} col ${col + 1}` });
        }
      }
      return true;
    };
    const pointer = (el) => el.ownerDocument.defaultView.getComputedStyle(el).cursor === 'pointer';
    const up = (n) => n.parentNode instanceof ShadowRoot ? n.parentNode.host : n.parentElement;
    // What a click at a hit element acts on: its nearest interactive ancestor, else a canvas or
    // video, else the outermost element of its pointer-cursor run.
    const target = (hit) => {
      for (let n = hit; n && n.nodeType === 1; n = up(n)) {
        const ro = role(n);
        if (isInteractive(n, ro)) return n;
        if (UNSEEN.includes(n.localName)) return n;
      }
      if (!pointer(hit)) return null;
      let top = hit;
      for (let n = up(hit); n && n.nodeType === 1 && pointer(n); n = up(n)) top = n;
      return top === document.documentElement || top === document.body ? null : top;
    };
    // Interactive elements of the tree, where a click at their centre reaches them; same-origin
    // iframes' documents too (at their place in the viewport). Cross-origin frames are another
    // process's: their elements are not listed here.
    const scan = (doc, frame) => {
      const roots = [doc];
      while (roots.length) {
        const root = roots.pop();
        for (const el of root.querySelectorAll('*')) {
          if (el.shadowRoot) roots.push(el.shadowRoot);
          if (el.localName === 'iframe') {
            let inner = null;
            try { inner = el.contentDocument; } catch (e) { inner = null; }
            if (inner && inner.documentElement) {
              const b = el.getBoundingClientRect();
              const cs = doc.defaultView.getComputedStyle(el);
              const ox = frame.ox + b.left + el.clientLeft + parseFloat(cs.paddingLeft);
              const oy = frame.oy + b.top + el.clientTop + parseFloat(cs.paddingTop);
              scan(inner, { ox, oy, x0: Math.max(frame.x0, ox), y0: Math.max(frame.y0, oy),
                x1: Math.min(frame.x1, ox + el.clientWidth), y1: Math.min(frame.y1, oy + el.clientHeight) });
            }
            continue;
          }
          if (!isInteractive(el, role(el)) || !visible(el)) continue;
          const r = el.getBoundingClientRect();
          const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
          if (cx + frame.ox < frame.x0 || cy + frame.oy < frame.y0 || cx + frame.ox >= frame.x1 || cy + frame.oy >= frame.y1) continue;
          const hit = hitAt(doc, cx, cy);
          if (hit && (composedContains(el, hit) || hit.control === el)) add(el, frame);
        }
      }
    };
    scan(document, TOP);
    // A grid of hit tests for what the tree misses.
    const STEP = 16;
    const tried = new Set();
    for (let y = STEP / 2; y < H; y += STEP) {
      for (let x = STEP / 2; x < W; x += STEP) {
        const hit = hitAt(document, x, y);
        if (hit && !tried.has(hit)) { tried.add(hit); add(target(hit)); }
      }
    }
    return { badges: found, next, width: W, height: H };
  }

  const element = (ref) => { const found = lookup(ref); return found.el || null; };
  // The vault is about to type a secret into `el`: from now on it reads as filled, never by
  // content (login-focus.js calls it in the same step that checks the focus).
  //
  // A secret field never shows its value in clear: a text field (a one-time code) is drawn as
  // dots, and when the page unmasks it (a "show password" button turning it into a text field,
  // or its dots taken away) its value is emptied at once.
  const markSecret = (el) => {
    if (secrets.has(el)) return;
    secrets.add(el);
    const masked = () => el.type === 'password' ||
      el.ownerDocument.defaultView.getComputedStyle(el).webkitTextSecurity !== 'none';
    if (!masked()) el.style.setProperty('-webkit-text-security', 'disc', 'important');
    const view = el.ownerDocument.defaultView;
    new view.MutationObserver(() => {
      if (!masked() && el.value) el.value = '';
    }).observe(el, { attributes: true, attributeFilter: ['type', 'style', 'class'] });
  };

  // The files an input holds, for read-back when it is known by node rather than by ref.
  const filesOf = (el) => ({ files: [...el.files].map((f) => ({ name: f.name, size: f.size })), what: describe(el) });

  // A ref for an element found by the tools (an <iframe> owning a cross-origin frame).
  const issue = (el, base) => ({ ref: refFor(el, base), next });

  const api = { armRelease, badges, markSecret, frameShows, has, textAround, here, issue, fileInput, setFiles, setFilesOf, filesOf, element, readBack, snapshot, point, frameOrigin, fill, find, text, hasText, hasSelector, quiet, refOf: (el) => byEl.get(el) || null };
  Object.defineProperty(globalThis, KEY, { value: api, enumerable: false });
  return api;
})()
