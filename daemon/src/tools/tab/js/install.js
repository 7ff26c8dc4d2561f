// Installs page.js's API in a world (world.rs): its `nonce` set on it; the value is true.
(api, nonce) => { api.nonce = nonce; return true; }
