//! Docker mode on a second, real `dockerd` standing in for a remote host (issue 13, issue 22):
//! the engine reached over mutual TLS with nothing published (`engine`) and a start's
//! connections to it (`start`).

mod engine;
mod start;
