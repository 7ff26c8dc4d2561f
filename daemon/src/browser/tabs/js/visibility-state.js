// Whether the document is visible (own_tabs.rs).
document.visibilityState
