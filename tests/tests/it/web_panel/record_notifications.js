// Installed in the panel page before its own scripts (Page.addScriptToEvaluateOnNewDocument):
// every Notification the page constructs is recorded in window.__notified, then made for real.
(() => {
  const Real = window.Notification;
  window.__notified = [];
  function Recorded(title, options) {
    window.__notified.push({ title, body: options && options.body, tag: options && options.tag });
    return new Real(title, options);
  }
  Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
  Recorded.requestPermission = (...args) => Real.requestPermission(...args);
  window.Notification = Recorded;
})();
