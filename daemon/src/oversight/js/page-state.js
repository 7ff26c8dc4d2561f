// The human-activity guard's read of a tab: its URL and its form fields (page_state.rs).
(() => {
  const label = (el) => {
    const l = el.labels && el.labels[0] ? el.labels[0].textContent : '';
    return (l || el.getAttribute('aria-label') || el.name || el.id || el.placeholder || el.type || el.localName).replace(/\s+/g, ' ').trim().slice(0, 60);
  };
  const fields = [];
  for (const el of document.querySelectorAll('input, textarea, select')) {
    if (el.type === 'hidden') continue;
    let value = (el.type === 'checkbox' || el.type === 'radio') ? String(el.checked) : String(el.value);
    if (el.type === 'password') value = '(password, ' + value.length + ' characters)';
    fields.push([label(el), value.slice(0, 200)]);
  }
  return {url: location.href, fields};
})()
