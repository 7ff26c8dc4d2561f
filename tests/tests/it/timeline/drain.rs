//! A clean shutdown (SIGTERM) writes the timeline's queued events before the daemon exits
//! (issue 19: a restart keeps the timeline, up to the last call).

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use serde_json::json;

use super::{daemon_on_page, events, owner_act, serve_pages};

/// Calls made back to back before the SIGTERM.
const CALLS: usize = 20;

#[tokio::test]
async fn sigterm_right_after_the_last_call_keeps_every_calls_event() {
    let pages = serve_pages().await;
    let options = DaemonOptions::default();
    let channel = "tl-drain";
    let daemon = daemon_on_page(options.clone(), channel, &format!("{pages}/blue")).await;
    // Each call answers before its frame is taken, so the recorder's queue grows behind them.
    for n in 0..CALLS {
        owner_act(
            &daemon,
            channel,
            "evaluate",
            json!({"expression": format!("{n} + 1")}),
        )
        .await;
    }
    let data = daemon.stop().await;
    let log = std::fs::read_to_string(data.path().join("stderr.log")).unwrap_or_default();
    let daemon = TestDaemon::start_in(data, options).await;
    let all = events(&daemon, channel).await;
    let evaluated: Vec<_> = all
        .iter()
        .filter(|e| e["kind"] == "tool" && e["tool"] == "evaluate")
        .collect();
    assert_eq!(
        evaluated.len(),
        CALLS,
        "the timeline after a SIGTERM and a restart lost calls: {all:#?}\nlog of the stopped daemon:\n{}",
        log.lines()
            .filter(|l| l.contains("timeline") || l.contains("daemon_st"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(log.contains("timeline_drained"), "no drain in the log");
}
