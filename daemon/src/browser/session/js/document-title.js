// The document's title (session/events.rs).
document.title
