//! Logging: human-readable lines on stderr, filtered by `RUST_LOG` (default `info`), and the
//! same lines appended to `<data_dir>/logs/porthole.log`.

use std::path::Path;
use std::sync::Mutex;

use tracing_subscriber::prelude::*;
use tracing_subscriber::EnvFilter;

/// Installs the global subscriber.
pub fn init(data_dir: &Path) -> std::io::Result<()> {
    let logs = data_dir.join("logs");
    std::fs::create_dir_all(&logs)?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(logs.join("porthole.log"))?;
    let filter = || EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
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
