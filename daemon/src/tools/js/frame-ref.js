// Run on an <iframe> element in the tools' world of the document that holds it (frames.rs): its
// ref, issued from `base` when it has none; null when the world's helper is not the one with
// `nonce`.
function (nonce, base) { try { const h = window[Symbol.for('porthole.tools')]; if (!h || h.nonce !== nonce) return null; const r = h.refOf(this); return r ? { ref: r } : (base ? h.issue(this, base) : null); } catch (_) { return null; } }
