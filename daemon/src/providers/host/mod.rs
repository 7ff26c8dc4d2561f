//! Host mode: the user's own running Chrome. Discovery lives here; the provider that gives
//! channels a session on it is built on top.

pub mod discovery;
