// Reports the top document's title through the __portholeTitle binding, in an isolated world at
// every document's start (titles.rs).
(() => {
  if (window.top !== window) return;
  let last = null;
  const report = () => {
    const title = document.title;
    if (title !== last) { last = title; __portholeTitle(title); }
  };
  const watch = () => {
    const root = document.head || document.documentElement;
    if (!root) return false;
    new MutationObserver(report).observe(root, {subtree: true, childList: true, characterData: true});
    report();
    return true;
  };
  if (!watch()) document.addEventListener('DOMContentLoaded', watch, {once: true});
})();
