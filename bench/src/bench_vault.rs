//! `porthole-bench vault` (issue 37): what the vault costs an agent, each figure against its
//! baseline in the same run:
//! - `fill_login` (the vault opens the item, checks both fields' frames' origins, types with
//!   trusted input) against `form_input` typing the same two values into the same two refs;
//! - the scan of answers for filled secrets, per KB of answer: `get_page_text` of a long page
//!   on a channel where a secret was filled against a channel where none was (end to end),
//!   and the scanner alone on that same text (in process).
//!
//! Medians of [`RUNS`] runs after a warm-up, taking turns.

use std::path::{Path, PathBuf};
use std::time::Instant;

use porthole_tests::action::Caller;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pages::PageServer;
use porthole_tests::vault_fixture::{self, KdbxEntry, KdbxFormat};
use porthole_tests::TempDir;
use serde_json::{json, Value};

use crate::stream_stats::median_of;

const FILLED: &str = "bench-vault";
const PLAIN: &str = "bench-vault-plain";
const RUNS: usize = 15;
const DB_PASSWORD: &str = "bench vault password";
const SITE_PASSWORD: &str = "b3nch-P@ss-w0rd";
const USER: &str = "alice";
/// The long page's size.
const PAGE_KB: usize = 256;

/// A `.kdbx` written by the real keepassxc-cli with one entry, `Web/Forum`, at `site`.
fn keepass_db(dir: &Path, site: &str) -> PathBuf {
    let login = format!("{site}/login.html");
    let forum = KdbxEntry {
        title: "Forum",
        username: USER,
        password: Some(SITE_PASSWORD),
        url: &login,
        otp: None,
        extra: &[],
    };
    vault_fixture::write(dir, "bench", DB_PASSWORD, &[forum], KdbxFormat::default())
}

/// The refs of the login form's two fields in the agent's tab.
async fn refs(agent: &Caller) -> (String, String) {
    let (_, page) = agent.act_text("read_page", json!({})).await;
    (
        porthole_tests::mcp::ref_of(&page, "User"),
        porthole_tests::mcp::ref_of(&page, "Password"),
    )
}

/// A fresh login page; then one fill by `fill_login` (true) or by two `form_input` calls,
/// in ms.
async fn fill(agent: &Caller, pages: &PageServer, by_vault: bool) -> f64 {
    agent
        .act_ok("navigate", json!({"url": pages.url("/login.html")}))
        .await;
    let (user, pass) = refs(agent).await;
    let started = Instant::now();
    if by_vault {
        agent
            .act_ok(
                "fill_login",
                json!({"item": "kp/Web/Forum", "username_ref": user, "password_ref": pass}),
            )
            .await;
    } else {
        agent
            .act_ok("form_input", json!({"ref": user, "value": USER}))
            .await;
        agent
            .act_ok("form_input", json!({"ref": pass, "value": SITE_PASSWORD}))
            .await;
    }
    started.elapsed().as_secs_f64() * 1000.0
}

/// One `get_page_text`: its time in ms and its text.
async fn page_text(agent: &Caller) -> (f64, String) {
    let started = Instant::now();
    let answer: Value = agent.act_ok("get_page_text", json!({})).await;
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    (ms, porthole_tests::action::result_text(&answer))
}

/// Runs the vault part and prints it.
pub async fn run() {
    let pages = PageServer::area("vault").await;
    let dir = TempDir::new("bench-vault");
    let kp = keepass_db(dir.path(), &pages.base());
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: vault_fixture::keepass_vault(&kp, &["kp/Web/Forum"]),
        rust_log: "info",
        ..Default::default()
    })
    .await;
    let (status, answer) = daemon
        .post(
            "/api/browser/vault/kp/unlock",
            &json!({"password": DB_PASSWORD}),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    let (_, token) = daemon.add_agent(FILLED, "filler", &[]).await;
    let filler = daemon.caller(&token);
    let (_, token) = daemon.add_agent(PLAIN, "plain", &[]).await;
    let plain = daemon.caller(&token);

    // fill_login against form_input, the same two values into the same two fields.
    fill(&filler, &pages, true).await;
    fill(&filler, &pages, false).await;
    let (mut vault, mut typed) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        vault.push(fill(&filler, &pages, true).await);
        typed.push(fill(&filler, &pages, false).await);
    }

    // The scan: a long page read on the channel with a filled secret and on one without.
    let long = pages.url(&format!("/big.html?kb={PAGE_KB}"));
    filler.act_ok("navigate", json!({"url": long})).await;
    plain.act_ok("navigate", json!({"url": long})).await;
    let (_, text) = page_text(&plain).await;
    page_text(&filler).await;
    let (mut scanned, mut bare) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        scanned.push(page_text(&filler).await.0);
        bare.push(page_text(&plain).await.0);
    }
    let kb = text.len() as f64 / 1024.0;
    // The scanner alone, on that text, with the filled secret's forms.
    let scanner = porthole::bench_hooks::vault::scan::Scanner::default();
    scanner
        .remember(
            FILLED,
            USER,
            porthole::bench_hooks::vault::scan::SecretKind::Password,
        )
        .unwrap();
    scanner
        .remember(
            FILLED,
            SITE_PASSWORD,
            porthole::bench_hooks::vault::scan::SecretKind::Password,
        )
        .unwrap();
    let mut alone = Vec::new();
    for _ in 0..RUNS * 4 {
        let started = Instant::now();
        let out = scanner.scrub(FILLED, &text);
        alone.push(started.elapsed().as_secs_f64() * 1e6);
        assert!(out.is_none() || !out.unwrap_or_default().contains(SITE_PASSWORD));
    }

    let (vault, typed) = (median_of(&vault), median_of(&typed));
    let (scanned, bare, alone) = (median_of(&scanned), median_of(&bare), median_of(&alone));
    println!("Vault (issue 37) — medians of {RUNS} runs, taking turns\n");
    println!(
        "fill_login {vault:.1} ms / form_input x2 {typed:.1} ms = {:.2}x (same two values, same refs)",
        vault / typed
    );
    println!(
        "get_page_text answering {kb:.0} KB (of a {PAGE_KB} KB page): secret filled \
         {scanned:.1} ms / none {bare:.1} ms, difference {:.1} µs/KB of answer",
        (scanned - bare) * 1000.0 / kb
    );
    println!(
        "the scanner alone on that text (2 secrets, every form): {alone:.0} µs = {:.2} µs/KB",
        alone / kb
    );
    daemon.stop().await;
}
