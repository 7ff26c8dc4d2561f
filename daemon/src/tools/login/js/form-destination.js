// Where pressing Enter in a field the vault filled would send its form (tools/login/fields.rs),
// run in the tools' isolated world of the field's frame, with page.js's API: the URL the form
// submits to, the default button's formaction when it has one (the button an implicit
// submission presses), else the form's action. A field in no form sends nothing: null.
(function (api, ref) {
  const el = api.element(ref);
  if (!el || !el.form) return null;
  const form = el.form;
  const button = [...form.elements].find((b) =>
    (b.localName === 'button' && (b.getAttribute('type') || 'submit').toLowerCase() === 'submit') ||
    (b.localName === 'input' && ['submit', 'image'].includes((b.getAttribute('type') || '').toLowerCase())));
  const url = button && button.hasAttribute('formaction') ? button.formAction : form.action;
  let origin = 'null';
  try { origin = new URL(url, el.ownerDocument.baseURI).origin; } catch (e) { /* stays null */ }
  return { url: String(url).slice(0, 300), origin };
})
