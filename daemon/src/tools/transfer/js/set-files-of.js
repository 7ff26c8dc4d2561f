// Run on a file input in the tools' world (Runtime.callFunctionOn, files.rs): page.js's
// setFilesOf on it (globalThis[Symbol.for('porthole.tools')] is world.rs's HELPER).
function (input, files) { return globalThis[Symbol.for('porthole.tools')].setFilesOf(input, files); }
