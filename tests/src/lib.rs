//! Test harness for black-box tests of the real `porthole` binary: start a daemon in a private
//! data dir, talk to it as a pane over WebSocket, serve test pages on 127.0.0.1, and look
//! inside a channel's Chromium through its own DevTools port.
//!
//! Every wait here has a deadline and waits on an event or polls; nothing sleeps a fixed time.
//! The benches (`bench/`, `porthole-bench`) build on this harness too.

pub mod action;
pub mod cdp_clients;
pub mod chromium;
pub mod cli;
pub mod cookie_profiles;
pub mod daemon;
pub mod delay_proxy;
pub mod devtools_port;
pub mod docker;
pub mod events;
pub mod http;
pub mod mcp;
pub mod page_family;
pub mod pages;
pub mod pane;
pub mod pane_on_page;
pub mod raw_cdp;
pub mod remote;
pub mod sockets;
pub mod start_log;
pub mod tool_runs;
pub mod typescript;
pub mod vault_fixture;

use std::time::{Duration, Instant};

/// Polls `check` every 50 ms until it returns `Some` or `deadline` passes.
pub async fn eventually<T, F, Fut>(what: &str, deadline: Duration, check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    Poll::new(what, deadline).until(check).await
}

/// The harness's one polling loop: asks a check every `every` until it answers `Some` or the
/// deadline passes, then panics naming what it waited for (and, with [`Poll::explained`], what
/// was there instead).
pub struct Poll<'a> {
    what: &'a str,
    deadline: Duration,
    every: Duration,
}

impl<'a> Poll<'a> {
    /// Every 50 ms until `deadline`.
    pub fn new(what: &'a str, deadline: Duration) -> Self {
        Self {
            what,
            deadline,
            every: Duration::from_millis(50),
        }
    }

    /// Asks every `every` instead.
    pub fn every(mut self, every: Duration) -> Self {
        self.every = every;
        self
    }

    /// Polls `check` until it returns `Some`.
    pub async fn until<T, F, Fut>(self, check: F) -> T
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Option<T>>,
    {
        self.explained(check, || async { None }).await
    }

    /// Polls `check` until it returns `Some`; on timeout the panic adds what `explain` says
    /// was there instead.
    pub async fn explained<T, F, Fut, E, EFut>(self, mut check: F, explain: E) -> T
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Option<T>>,
        E: FnOnce() -> EFut,
        EFut: std::future::Future<Output = Option<String>>,
    {
        let end = Instant::now() + self.deadline;
        loop {
            if let Some(value) = check().await {
                return value;
            }
            if Instant::now() > end {
                let (what, deadline) = (self.what, self.deadline);
                match explain().await {
                    Some(shown) => {
                        panic!("timed out after {deadline:?} waiting for {what}; {shown}")
                    }
                    None => panic!("timed out after {deadline:?} waiting for {what}"),
                }
            }
            tokio::time::sleep(self.every).await;
        }
    }
}

/// A fresh private directory under the system temp dir, removed on drop.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(prefix: &str) -> Self {
        let path = std::env::temp_dir().join(format!(
            "porthole-test-{prefix}-{}-{:08x}",
            std::process::id(),
            rand_u32()
        ));
        std::fs::create_dir_all(&path).expect("create temp dir");
        Self(path)
    }

    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn rand_u32() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos(),
    );
    hasher.finish() as u32
}

/// Path of a binary built by this workspace (`cargo build` puts them next to the test's deps).
/// The workspace's root directory (scripts live under it).
pub fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

pub fn workspace_binary(name: &str) -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    // Tests run from target/<profile>/deps/, binaries such as the bench from target/<profile>/.
    let here = exe.parent().expect("exe dir");
    let dir = if here.ends_with("deps") {
        here.parent().expect("target dir")
    } else {
        here
    };
    let path = dir.join(name);
    assert!(
        path.is_file(),
        "{} is missing: build the workspace binaries first (`cargo build --workspace --bins`, which `make test` does)",
        path.display()
    );
    path
}

/// Processes whose command line contains `needle` (used to prove no Chromium is left behind).
pub fn processes_with(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            // Zombies have an empty cmdline and are gone for every practical purpose.
            if text.contains(needle) && pid != std::process::id() {
                found.push(pid);
            }
        }
    }
    found
}
