// After the vault's click on a field (tools/login.rs): whether that field now has the focus
// in a focused document, so typed text goes there and nowhere else; when it has, its current
// text is selected so the typing replaces it, and when `secret` (a password or a one-time
// code) the field is marked so no reading tool matches on or shows its value. Run in the
// tools' isolated world of the field's frame, with page.js's API.
(function (api, ref, secret) {
  const el = api.element(ref);
  if (!el || !el.isConnected) return { focused: false };
  const doc = el.ownerDocument;
  let active = doc.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
  const focused = active === el && doc.hasFocus();
  if (focused && secret) api.markSecret(el);
  if (focused && typeof el.select === 'function') { try { el.select(); } catch (e) { /* a type without selection */ } }
  return { focused };
})
