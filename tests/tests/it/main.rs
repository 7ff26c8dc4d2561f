//! Black-box tests of the real `porthole` binary against a real headless Chromium.
//! One test binary for the whole package (link time); one module per area.

mod api;
mod approvals;
mod cdp;
mod consent_rules;
mod cookies;
mod docker;
mod fuzz;
mod hardening;
mod host;
mod input;
mod layers;
mod mcp;
mod pane;
mod person;
mod remote;
mod settings_documented;
mod sites;
mod timeline;
mod trust;
mod vault;
mod web_panel;
