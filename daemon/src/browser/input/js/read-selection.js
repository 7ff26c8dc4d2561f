// The selected text, a selection inside a text field or a same-origin iframe included
// (input/events.rs).
(() => {
  const read = (doc) => {
    const el = doc.activeElement;
    if (el && el.tagName === 'IFRAME') {
      try { if (el.contentDocument) return read(el.contentDocument); } catch (_) {}
    }
    if (el && (el.tagName === 'TEXTAREA' || el.tagName === 'INPUT') && typeof el.selectionStart === 'number'
        && el.selectionEnd > el.selectionStart) {
      return el.value.substring(el.selectionStart, el.selectionEnd);
    }
    return String(doc.getSelection ? doc.getSelection() : '');
  };
  return read(document);
})()
