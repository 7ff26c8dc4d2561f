//! The `porthole` command line as a person runs it: the one place that spawns the binary, on a
//! config file and a data dir (`porthole --config <file> --data-dir <dir> <subcommand>`).

use std::path::Path;

use tokio::process::Command;

/// `porthole` with no options (a subcommand that needs no data dir, or the defaults).
pub fn porthole_bare() -> Command {
    Command::new(crate::workspace_binary("porthole"))
}

/// `porthole --config <config> --data-dir <data>`, ready for its subcommand and arguments.
pub fn porthole(config: &Path, data: &Path) -> Command {
    let mut command = porthole_bare();
    command
        .arg("--config")
        .arg(config)
        .arg("--data-dir")
        .arg(data);
    command
}

/// `porthole` on the data dir `data` and its own `config.json` (a test daemon's).
pub fn porthole_in(data: &Path) -> Command {
    porthole(&data.join("config.json"), data)
}
