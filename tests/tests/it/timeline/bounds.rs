//! The timeline's cap holds against events that bring no new frame (issue 38, item 1): an
//! agent calling a 1 MB unknown tool name twelve times, and a page making four
//! `history.replaceState` navigations with 1.5 MB fragments, each recorded as an event. The
//! channel's directory stays under `timeline.max_mb`, each event is a few kilobytes, and the
//! listing and the export still answer.

use std::time::Duration;

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::eventually;
use serde_json::{json, Value};

use super::{daemon_on_page, dir_bytes, events, export, serve_pages};

/// `timeline.max_mb` of these tests, and the cap in bytes.
const MAX_MB: u64 = 1;
const CAP: u64 = MAX_MB * 1024 * 1024;
/// The most one listed event may take, serialized.
const EVENT_MAX: usize = 4 * 1024;

fn options() -> DaemonOptions {
    DaemonOptions {
        config: json!({"timeline": {"max_mb": MAX_MB}}),
        ..DaemonOptions::default()
    }
}

/// The directory is under the cap, every event is small, and the export answers.
async fn check_bounded(daemon: &TestDaemon, channel: &str, all: &[Value]) {
    let dir = daemon.data.path().join("timeline").join(channel);
    let used = dir_bytes(&dir);
    assert!(used <= CAP, "the timeline takes {used} bytes > {CAP}");
    for event in all {
        let size = event.to_string().len();
        assert!(size <= EVENT_MAX, "an event of {size} bytes");
    }
    let (status, html) = export(daemon, channel).await;
    assert_eq!(status, 200);
    assert!(
        (html.len() as u64) < CAP,
        "an export of {} bytes",
        html.len()
    );
}

#[tokio::test]
async fn an_agents_huge_unknown_tool_names_stay_under_the_cap() {
    let pages = serve_pages().await;
    let channel = "tl-tool-names";
    let daemon = daemon_on_page(options(), channel, &format!("{pages}/blue")).await;
    let (_, agent) = daemon.add_agent(channel, "flood", &[]).await;
    let name = "t".repeat(1 << 20);
    for _ in 0..12 {
        let (status, out) = daemon.caller(&agent).call(&name, json!({})).await;
        assert_eq!(status, 200);
        assert_eq!(out["isError"], true, "an unknown tool answers an error");
    }
    // The recorder keeps order: once this call is in, every one before it is.
    daemon.caller(&agent).act_ok("page_info", json!({})).await;
    let all = eventually(
        "the last call recorded",
        Duration::from_secs(60),
        || async {
            let all = events(&daemon, channel).await;
            all.iter().any(|e| e["tool"] == "page_info").then_some(all)
        },
    )
    .await;
    check_bounded(&daemon, channel, &all).await;
    let unknown: Vec<&Value> = all
        .iter()
        .filter(|e| e["kind"] == "tool" && e["tool"] != "page_info" && e["tool"] != "navigate")
        .collect();
    assert_eq!(unknown.len(), 12, "{all:#?}");
    for event in &unknown {
        assert_eq!(event["tool"], "unknown tool (1048576 characters)");
    }
}

#[tokio::test]
async fn a_pages_huge_replace_state_navigations_stay_under_the_cap() {
    let pages = serve_pages().await;
    let channel = "tl-replace-state";
    let daemon = daemon_on_page(options(), channel, &format!("{pages}/replace")).await;
    // The page's last same-document navigation (its URL without the fragment).
    let all = eventually(
        "the page's fourth navigation recorded",
        Duration::from_secs(150),
        || async {
            let all = events(&daemon, channel).await;
            all.iter()
                .any(|e| {
                    e["kind"] == "navigation"
                        && e["url"].as_str().is_some_and(|u| u.contains("/replaced-3"))
                })
                .then_some(all)
        },
    )
    .await;
    check_bounded(&daemon, channel, &all).await;
    for event in all.iter().filter(|e| e["kind"] == "navigation") {
        let url = event["url"].as_str().unwrap_or_default();
        assert!(!url.contains('#'), "a fragment kept: {} bytes", url.len());
    }
}
