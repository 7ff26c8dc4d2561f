// The vault's field finder (tools/login.rs), run in the tools' isolated world of a tab's main
// frame with page.js's API: the sign-in form's fields when the agent gave no refs. Looks in
// the document and its same-origin frames (a cross-origin frame's fields need refs from
// read_page). `want`: 'login' (user name and password) or 'otp' (a one-time code field).
// Returns refs issued from `base` on: { username, password, otp, next }.
(function (api, want, base) {
  const TEXTUAL = ['text', 'email', 'tel', 'number', 'search', 'url', ''];
  const shown = (el) => {
    if (el.disabled || el.readOnly || el.type === 'hidden') return false;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return false;
    const cs = el.ownerDocument.defaultView.getComputedStyle(el);
    return cs.visibility !== 'hidden' && cs.display !== 'none';
  };
  const inputs = [];
  const walk = (doc) => {
    for (const el of doc.querySelectorAll('input')) if (shown(el)) inputs.push(el);
    for (const frame of doc.querySelectorAll('iframe, frame')) {
      let inner = null;
      try { inner = frame.contentDocument; } catch (e) { inner = null; }
      if (inner) walk(inner);
    }
  };
  walk(document);
  const hint = (el) => (el.getAttribute('autocomplete') || '').toLowerCase();
  const words = (el) => [el.name, el.id, el.getAttribute('placeholder') || '', el.getAttribute('aria-label') || ''].join(' ').toLowerCase();
  let next = base;
  const issue = (el) => {
    if (!el) return null;
    const answer = api.issue(el, next);
    next = answer.next;
    return answer.ref;
  };
  if (want === 'otp') {
    const textual = inputs.filter((el) => TEXTUAL.includes(el.type) && el.type !== 'email');
    const otp = textual.find((el) => hint(el).includes('one-time-code')) ||
      textual.find((el) => /otp|totp|2fa|mfa|one.?time|verification|auth.?code|\bcode\b|token/.test(words(el))) ||
      (textual.length === 1 ? textual[0] : null);
    return { username: null, password: null, otp: issue(otp), next };
  }
  const passwords = inputs.filter((el) => el.type === 'password' && !hint(el).includes('new-password'));
  const password = passwords.find((el) => hint(el).includes('current-password')) || passwords[0] || null;
  const textual = inputs.filter((el) => TEXTUAL.includes(el.type));
  let username = textual.find((el) => /\b(username|email)\b/.test(hint(el)));
  if (!username && password) {
    // The visible text field right before the password, in document order.
    const before = textual.filter((el) => el.ownerDocument === password.ownerDocument &&
      (el.compareDocumentPosition(password) & Node.DOCUMENT_POSITION_FOLLOWING));
    username = before[before.length - 1];
  }
  if (!username && !password) {
    username = textual.find((el) => /user|login|email|e-mail|account/.test(words(el)));
  }
  return { username: issue(username || null), password: issue(password), otp: null, next };
})
