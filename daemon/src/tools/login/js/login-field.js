// What the vault must know of one field before typing into it (tools/login.rs), run in the
// tools' isolated world of the frame that holds it, with page.js's API: the origin of that
// frame's document (from this world, which page scripts cannot reach), whether it is a text
// field that takes typing, and whether its document, or a same-origin one around it that can
// reach into it, was written by script rather than served by the site (a `blob:`, `data:`,
// `about:srcdoc` or `about:blank` document, `document.write` into a popup): such a document
// counts as scripted (DESIGN.md §19a).
(function (api, ref) {
  const el = api.element(ref);
  if (!el) return { error: 'unknown' };
  if (!el.isConnected) return { error: 'stale' };
  const view = el.ownerDocument.defaultView;
  const tag = el.localName;
  const type = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : '';
  const textual = (tag === 'input' && ['text', 'email', 'tel', 'number', 'search', 'url', 'password'].includes(type)) || tag === 'textarea';
  const served = (doc) => /^https?:$/.test(new URL(doc.URL).protocol);
  let written = !served(el.ownerDocument);
  for (let w = view; w && w.parent !== w && !written; ) {
    w = w.parent;
    try { written = !served(w.document); } catch (_) { break; } // another origin: cannot reach in
  }
  const what = tag + (el.name ? '[name=' + el.name + ']' : el.id ? '#' + el.id : '') + (type ? ' (' + type + ')' : '');
  return {
    origin: view ? view.origin : 'null',
    // Every document around it, up to the tab's page: one of another site could take the
    // focus between the check and the typing (the vault review's V8).
    ancestors: view ? Array.from(view.location.ancestorOrigins || []) : [],
    textual,
    usable: textual && !el.disabled && !el.readOnly,
    password: type === 'password',
    written,
    what,
  };
})
