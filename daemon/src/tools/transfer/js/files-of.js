// Run on a file input in the tools' world (Runtime.callFunctionOn, files.rs): page.js's filesOf
// on it (globalThis[Symbol.for('porthole.tools')] is world.rs's HELPER).
function (input) { return globalThis[Symbol.for('porthole.tools')].filesOf(input); }
