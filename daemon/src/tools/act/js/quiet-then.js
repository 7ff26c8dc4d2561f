// The DOM-quiet wait's promise, then `then()` as the settled page gives it (null if it throws),
// in one call (waits.rs).
(quiet, then) => quiet.then((q) => ({ ...q, then: (() => { try { return then(); } catch (_) { return null; } })() }))
