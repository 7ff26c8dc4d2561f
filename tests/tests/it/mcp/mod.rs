//! MCP browser tools end to end: an rmcp client drives the real `porthole-mcp` (proxy to a
//! running daemon, with a pane watching the channel) and the real `porthole mcp-host-browser`
//! (on a Chromium started by the test standing in for the user's Chrome), against local pages.

mod agents;
mod badges;
mod both;
mod bounds;
mod budget;
mod checks;
mod downloads_kept;
mod files;
pub(crate) mod harness;
mod host;
mod hostile;
mod nested_frames;
mod oopif;
mod oversight;
mod proxy;
mod proxy_cli;
mod refs;
mod round_trips;
mod same_site_frames;
mod self_check;
mod settle;
mod trust_urls;
