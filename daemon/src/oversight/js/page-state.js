// The human-activity guard's read of a tab (page_state.rs), run in the tools' isolated world,
// where the page's own scripts cannot replace what it calls: the URL and the form fields, each
// label and value cut to its bound and at most `maxFields` of them.
(maxFields, maxLabel, maxValue) => {
  const label = (el) => {
    const l = el.labels && el.labels[0] ? el.labels[0].textContent : '';
    return (l || el.getAttribute('aria-label') || el.name || el.id || el.placeholder || el.type || el.localName).replace(/\s+/g, ' ').trim().slice(0, maxLabel);
  };
  const fields = [];
  for (const el of document.querySelectorAll('input, textarea, select')) {
    if (el.type === 'hidden') continue;
    if (fields.length >= maxFields) break;
    let value = (el.type === 'checkbox' || el.type === 'radio') ? String(el.checked) : String(el.value);
    // A secret field reads as filled or empty, never by content or length.
    const secret = el.type === 'password'
      || (el.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/).includes('one-time-code');
    if (secret) value = value ? '(secret, filled)' : '(secret, empty)';
    fields.push([label(el), value.slice(0, maxValue)]);
  }
  return {url: location.href, fields};
}
