//! Logging for a stdio MCP server: stdout belongs to the protocol, so logs go to a file when
//! one is given, else to stderr. Shared by `porthole-mcp` and `porthole mcp-host-browser`.

use std::io::IsTerminal as _;
use std::path::Path;

/// Installs the global subscriber (`RUST_LOG`, default `info`).
pub fn init_stdio_logging(log: Option<&Path>) -> std::io::Result<()> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    match log {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| {
                    std::io::Error::new(
                        e.kind(),
                        format!("cannot open log file {}: {e}", path.display()),
                    )
                })?;
            builder
                .with_ansi(false)
                .with_writer(std::sync::Mutex::new(file))
                .init();
        }
        None => builder
            .with_ansi(std::io::stderr().is_terminal())
            .with_writer(std::io::stderr)
            .init(),
    }
    Ok(())
}
