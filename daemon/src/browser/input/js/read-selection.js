// The selected text, a selection inside a text field or a same-origin iframe included
// (input/events.rs); `null` in a password or one-time-code field, which is never copied (as in
// Chrome itself: its value must not reach the host's clipboard).
(() => {
  const read = (doc) => {
    const el = doc.activeElement;
    if (el && el.tagName === 'IFRAME') {
      try { if (el.contentDocument) return read(el.contentDocument); } catch (_) {}
    }
    if (el && (el.tagName === 'TEXTAREA' || el.tagName === 'INPUT') && typeof el.selectionStart === 'number'
        && el.selectionEnd > el.selectionStart) {
      const secret = el.type === 'password'
        || (el.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/).includes('one-time-code')
        || el.style.webkitTextSecurity === 'disc';
      if (secret) return null;
      return el.value.substring(el.selectionStart, el.selectionEnd);
    }
    return String(doc.getSelection ? doc.getSelection() : '');
  };
  return read(document);
})()
