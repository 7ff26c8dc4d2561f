//! Logging: human-readable lines on stderr, filtered by `RUST_LOG` (default `info`), and the
//! same lines appended to `<data_dir>/logs/porthole.log`. WebSocket libraries are capped at
//! `info` so no CDP payload (which may carry a cookie value) is ever logged.

use std::path::Path;
use std::sync::Mutex;

use tracing_subscriber::prelude::*;
use tracing_subscriber::EnvFilter;

/// Crates that would log message payloads (cookie values in CDP traffic) below this level.
const NO_PAYLOAD_LOGGING: &[&str] = &["tungstenite=info", "tokio_tungstenite=info"];

/// Installs the global subscriber.
pub fn init(data_dir: &Path) -> std::io::Result<()> {
    let logs = data_dir.join("logs");
    std::fs::create_dir_all(&logs)?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(logs.join("porthole.log"))?;
    let filter = || {
        let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
        // tungstenite logs every WebSocket message at trace level, and CDP messages carry
        // cookie values during an import: never let it below info, whatever RUST_LOG says.
        NO_PAYLOAD_LOGGING.iter().fold(filter, |f, directive| {
            f.add_directive(directive.parse().expect("static directive"))
        })
    };
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_filter(filter()),
        )
        .with(
            tracing_subscriber::fmt::layer()
                .with_ansi(false)
                .with_writer(Mutex::new(file))
                .with_filter(filter()),
        )
        .init();
    Ok(())
}
