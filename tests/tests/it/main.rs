//! Black-box tests of the real `porthole` binary against a real headless Chromium.
//! One test binary for the whole package (link time); one module per area.

mod api;
mod cdp;
mod cookies;
mod docker;
mod docker_bounds;
mod docker_pause;
mod docker_reset;
mod docker_spare;
mod docker_start;
mod fuzz;
mod hardening;
mod host;
mod input;
mod layers;
mod mcp;
mod pane_context_menu;
mod pane_docker;
mod pane_downloads;
mod pane_file_picker;
mod pane_files;
mod pane_pickers;
mod pane_types;
mod pane_view;
mod pane_views;
mod panes;
mod remote;
mod remote_start;
mod settings_documented;
mod sites;
mod timeline;
mod trust;
mod trust_bounds;
mod trust_channels;
mod vault;
mod web_panel;
