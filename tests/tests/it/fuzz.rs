//! The HTTP API under a property-based fuzzer (DESIGN.md §13): schemathesis, pinned in a venv
//! that `scripts/setup/schemathesis.sh` makes, runs against a live local-mode daemon's OpenAPI
//! document with the owner token. Every operation except the image build (minutes of Docker
//! work) is tried; no 5xx but the documented 503, every status and every response body as
//! documented.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use porthole_tests::daemon::{DaemonOptions, TestDaemon};

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// The venv's schemathesis, made (idempotently) if missing.
fn schemathesis() -> PathBuf {
    let root = workspace_root();
    let status = std::process::Command::new(root.join("scripts/setup/schemathesis.sh"))
        .stdout(Stdio::null())
        .status()
        .expect("run scripts/setup/schemathesis.sh");
    assert!(status.success(), "scripts/setup/schemathesis.sh failed");
    let venv = std::env::var_os("PORTHOLE_FUZZ_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/schemathesis-venv"));
    venv.join("bin/schemathesis")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_document_holds_under_schemathesis() {
    let cli = schemathesis();
    let daemon = TestDaemon::start_with(DaemonOptions {
        probe_port: false,
        rust_log: "info",
        ..Default::default()
    })
    .await;
    let report = daemon.data.path().join("schemathesis");
    let mut command = tokio::process::Command::new(&cli);
    command
        .arg("--config-file")
        .arg(workspace_root().join("tests/fuzz/schemathesis.toml"))
        .arg("--no-color")
        .arg("run")
        .arg(format!("{}/api/openapi.json", daemon.base))
        .args(["-H", &format!("Authorization: Bearer {}", daemon.token)])
        .args([
            "--checks",
            "not_a_server_error,status_code_conformance,response_schema_conformance,content_type_conformance",
            "--exclude-path",
            "/api/browser/image/build",
            // Enough to reach every status of every operation; the run stays near a minute
            // here (each distinct channel id an action names starts a Chromium).
            "--max-examples",
            "25",
            "--workers",
            "1",
            "--request-timeout",
            "60",
            "--report",
            "junit",
            "--report-dir",
        ])
        .arg(&report)
        // Its example database and reports go to the daemon's temporary dir, not the tree.
        .current_dir(daemon.data.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let output = tokio::time::timeout(Duration::from_secs(240), command.output())
        .await
        .expect("schemathesis finished within 4 minutes")
        .expect("run schemathesis");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "schemathesis found problems ({}):\n{stdout}\n{stderr}\n--- daemon log (tail) ---\n{}",
        output.status,
        tail(&daemon.log(), 60)
    );
    // It really ran: every operation but the build was tested and cases were generated.
    let (_, document) = daemon.get("/api/openapi.json").await;
    let operations: usize = document["paths"]
        .as_object()
        .expect("paths in the OpenAPI document")
        .values()
        .map(|item| item.as_object().map_or(0, |methods| methods.len()))
        .sum();
    let tested = operations - 1;
    assert!(
        tested >= 18 && stdout.contains(&format!("Tested: {tested}")),
        "schemathesis did not test the {tested} operations:\n{stdout}"
    );
    assert!(
        !daemon.log().contains("panicked"),
        "the daemon panicked under the fuzzer:\n{}",
        tail(&daemon.log(), 60)
    );
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
