// One find in page (find.rs): null while the pane world's find.js is not there yet.
(query, backwards) => (window.__portholeFind ? window.__portholeFind(query, backwards) : null)
