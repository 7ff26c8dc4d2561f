// What the vault must know of one field before typing into it (tools/login.rs), run in the
// tools' isolated world of the frame that holds it, with page.js's API: the origin of that
// frame's document (from this world, which page scripts cannot reach), and whether it is a
// text field that takes typing.
(function (api, ref) {
  const el = api.element(ref);
  if (!el) return { error: 'unknown' };
  if (!el.isConnected) return { error: 'stale' };
  const view = el.ownerDocument.defaultView;
  const tag = el.localName;
  const type = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : '';
  const textual = (tag === 'input' && ['text', 'email', 'tel', 'number', 'search', 'url', 'password'].includes(type)) || tag === 'textarea';
  const what = tag + (el.name ? '[name=' + el.name + ']' : el.id ? '#' + el.id : '') + (type ? ' (' + type + ')' : '');
  return {
    origin: view ? view.origin : 'null',
    textual,
    usable: textual && !el.disabled && !el.readOnly,
    password: type === 'password',
    what,
  };
})
