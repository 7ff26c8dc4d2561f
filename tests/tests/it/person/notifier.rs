//! `notify.command`: run once per approval (and per request for help) with its kind, agent and channel in the
//! environment and never its detail; a failing one is logged and the approval still waits
//! for the person.

use std::time::Duration;

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pane::Pane;
use porthole_tests::{eventually, TempDir};
use serde_json::json;

use super::{agent_confirming, CHANNEL};

/// A script that writes its arguments and environment to `<dir>/<approval id>` and then fails.
fn failing_notifier(dir: &TempDir) -> String {
    let script = dir.path().join("notify.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n{{ echo \"args: $*\"; env; }} > '{}/'\"$PORTHOLE_APPROVAL_ID\"\nexit 3\n",
            dir.path().display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script.display().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_notifier_runs_once_per_approval_without_its_detail_and_never_blocks_it() {
    let notes = TempDir::new("notifier");
    let script = failing_notifier(&notes);
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"notify": {"command": [script, "--from", "porthole"]}}),
        ..DaemonOptions::default()
    })
    .await;
    let (agent_id, token) = agent_confirming(&daemon, json!(["evaluate"])).await;
    let agent = daemon.caller(&token);

    // No pane, no stream: the notifier alone makes the approval wait.
    let marker = "secret-detail-7f3a";
    let waiting = {
        let agent = agent.clone();
        tokio::spawn(async move {
            agent
                .act_text(
                    "evaluate",
                    json!({"expression": format!("'{marker}'.length")}),
                )
                .await
        })
    };
    let note = eventually("the notifier's note", Duration::from_secs(30), || async {
        let entries = std::fs::read_dir(notes.path()).ok()?;
        entries
            .filter_map(Result::ok)
            .find(|e| e.file_name() != "notify.sh")
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read_to_string(e.path()).unwrap_or_default(),
                )
            })
            .filter(|(_, text)| text.contains("PORTHOLE_CHANNEL"))
    })
    .await;
    let (id, text) = note;
    assert!(text.contains("args: --from porthole"), "{text}");
    assert!(text.contains("PORTHOLE_APPROVAL_KIND=evaluate"), "{text}");
    assert!(text.contains("PORTHOLE_AGENT=shopper"), "{text}");
    assert!(
        text.contains(&format!("PORTHOLE_AGENT_ID={agent_id}")),
        "{text}"
    );
    assert!(
        text.contains(&format!("PORTHOLE_CHANNEL={CHANNEL}")),
        "{text}"
    );
    assert!(
        text.contains(&format!("PORTHOLE_APPROVAL_ID={id}")),
        "{text}"
    );
    assert!(
        !text.contains(marker),
        "the script reached the notifier: {text}"
    );

    // The notifier failed (exit 3): logged, and the approval still waits for the person.
    eventually("the failure logged", Duration::from_secs(15), || async {
        daemon.logged("notifier_failed").then_some(())
    })
    .await;
    assert!(
        !waiting.is_finished(),
        "the call did not wait for the person"
    );
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(CHANNEL).await;
    let shown = pane.next_of("approval", 0).await;
    assert_eq!(shown["id"], id.as_str(), "{shown}");
    // The positive control for the absent marker: the person's card shows it.
    assert!(
        shown["detail"].as_str().unwrap().contains(marker),
        "{shown}"
    );
    pane.send(json!({"type": "approval_answer", "id": id, "allow": false}));
    let (is_error, told) = waiting.await.unwrap();
    assert!(is_error && told.contains("declined"), "{told}");
    // Once per approval: one note.
    let notes_written = std::fs::read_dir(notes.path()).unwrap().count() - 1;
    assert_eq!(notes_written, 1);

    // A request for help runs it too (kind `handoff`, never the reason), and waits.
    drop(pane);
    let reason = "reason-marker-51c2";
    let asking = {
        let agent = agent.clone();
        tokio::spawn(async move {
            agent
                .act_text(
                    "request_human",
                    json!({"reason": reason, "timeout_ms": 60000}),
                )
                .await
        })
    };
    let (handoff_id, text) = eventually("the handoff's note", Duration::from_secs(30), || async {
        std::fs::read_dir(notes.path())
            .ok()?
            .filter_map(Result::ok)
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read_to_string(e.path()).unwrap_or_default(),
                )
            })
            .find(|(_, text)| text.contains("PORTHOLE_APPROVAL_KIND=handoff"))
    })
    .await;
    assert!(text.contains("PORTHOLE_AGENT=shopper"), "{text}");
    assert!(
        !text.contains(reason),
        "the reason reached the notifier: {text}"
    );
    assert!(
        !asking.is_finished(),
        "the request did not wait for the person"
    );
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(CHANNEL).await;
    let shown = pane.next_of("handoff", 0).await;
    assert_eq!(shown["id"], handoff_id.as_str(), "{shown}");
    assert_eq!(shown["reason"], reason, "{shown}");
    pane.send(json!({"type": "handoff_done", "id": handoff_id}));
    let (is_error, told) = asking.await.unwrap();
    assert!(!is_error, "{told}");
}
