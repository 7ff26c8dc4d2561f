// Run on an <iframe> element in the tools' world of the document that holds it (frames.rs): its
// ref, issued from `base` when it has none; null when the world's helper is not the one with
// `nonce`. With `skipReadable`, a frame whose document this world reads itself (same origin,
// walked by page.js in place) gets no ref and answers `{ readable: true }`.
function (nonce, base, skipReadable) { try { const h = window[Symbol.for('porthole.tools')]; if (!h || h.nonce !== nonce) return null; if (skipReadable) { let doc = null; try { doc = this.contentDocument; } catch (_) { doc = null; } if (doc && doc.documentElement) return { readable: true }; } const r = h.refOf(this); return r ? { ref: r } : (base ? h.issue(this, base) : null); } catch (_) { return null; } }
