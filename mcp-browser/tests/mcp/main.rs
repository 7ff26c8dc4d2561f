//! Integration tests: an rmcp client drives the real `porthole-mcp` binary (child process,
//! stdio) against a stub of the daemon's `POST /api/browser/action` on 127.0.0.1:0.
//!
//! The stub stands in until the daemon implements the tools; end-to-end tests against a real
//! daemon and Chromium live in the workspace's `tests/` package.

mod harness;
mod stub;

mod aliases;
mod errors;
mod forwarding;
mod save_screenshot;
mod tools_list;
