// The pane's isolated world in every frame (browser/floor/pane_world.rs), run at every
// document's start: a function of the CDP binding's name that reports go through. The parts
// (prompts/js/select-popup.js, prompts/js/pickers.js, view/js/cursor.js, view/js/find.js,
// prompts/js/context-menu.js, put together by browser/session/pane_reports.rs) take the place of
// the parts comment below, in one scope with `report`.
(binding) => {
  if (window.__portholePaneWorld) return;
  window.__portholePaneWorld = true;
  const report = (o) => { try { globalThis[binding](JSON.stringify(o)); } catch (_) {} };
  /* parts */
}
