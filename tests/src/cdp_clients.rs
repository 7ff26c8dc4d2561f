//! The CDP door's real clients: Playwright (`playwright-core`) and Puppeteer
//! (`puppeteer-core`), installed under `tests/cdp-clients/` by `scripts/setup/cdp-clients.sh`
//! (`make setup-test`). A test runs one of the scripts there with node against a door and reads
//! the one JSON line it prints.

use std::time::Duration;

use serde_json::Value;

/// Where the clients and their scripts live.
pub fn clients_dir() -> std::path::PathBuf {
    crate::workspace_root().join("tests").join("cdp-clients")
}

/// Runs `node <script> <endpoint> <args>` in `tests/cdp-clients/` and returns what it printed
/// (its last JSON line); panics with its output when it fails or prints none.
pub async fn run(script: &str, endpoint: &str, args: &Value) -> Value {
    let dir = clients_dir();
    assert!(
        dir.join("node_modules").join("playwright-core").is_dir()
            && dir.join("node_modules").join("puppeteer-core").is_dir(),
        "the CDP clients are not installed: run scripts/setup/cdp-clients.sh (make setup-test)"
    );
    let run = tokio::process::Command::new("node")
        .arg(script)
        .arg(endpoint)
        .arg(args.to_string())
        .current_dir(&dir)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .unwrap_or_else(|_| panic!("{script} did not finish within 120 s"))
        .unwrap_or_else(|e| panic!("node {script}: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let seen = stdout
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str::<Value>(line).ok());
    match seen {
        Some(seen) if output.status.success() => seen,
        _ => panic!(
            "{script} failed ({}):\nstdout: {stdout}\nstderr: {stderr}",
            output.status
        ),
    }
}
