//! Cross-origin (out-of-process) iframes through `porthole mcp-host-browser`: a page on
//! `127.0.0.1:<port>` embeds a frame from `localhost:<port>`, another site, which Chromium runs
//! in a process of its own. `read_page` shows the frame's controls with refs; a click by ref
//! lands inside it (offset by the frame's position) and `form_input` fills its field, both
//! read back through a separate CDP connection; refs from before the frame or the page
//! navigated are refused with "call read_page again"; and repeated `read_page` calls keep one
//! session per frame instead of attaching again each time.

use std::path::Path;
use std::time::Duration;

use porthole_tests::probe::Probe;
use porthole_tests::TempDir;
use serde_json::json;

use super::harness::{connect, err, eval_until, ok, ref_of};
use super::host::{host_args, UserChrome};

/// How often the server's log (`--log`, at debug level) records `event`.
fn log_count(log: &Path, event: &str) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .matches(event)
        .count()
}

/// The out-of-process frame target showing `/xframe?v=<version>`.
async fn frame_target(probe: &Probe, version: &str) -> String {
    let wanted = format!("/xframe?v={version}");
    porthole_tests::eventually(
        "the cross-site frame's own target",
        Duration::from_secs(20),
        || async {
            let targets = probe
                .cdp
                .call("Target.getTargets", json!({}))
                .await
                .expect("targets");
            targets["targetInfos"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|t| {
                    t["type"] == "iframe"
                        && t["url"].as_str().is_some_and(|u| {
                            u.starts_with("http://localhost:") && u.ends_with(&wanted)
                        })
                })
                .and_then(|t| t["targetId"].as_str().map(str::to_string))
        },
    )
    .await
}

#[tokio::test]
async fn cross_origin_iframes_are_read_clicked_and_filled_by_ref() {
    let pages = super::pages::serve().await;
    let port = pages.port();
    let url = |p: &str| format!("http://127.0.0.1:{port}{p}");
    let chrome = UserChrome::start(&url("/user")).await;
    let probe = Probe::connect(chrome.profile.path()).await;
    let home = TempDir::new("mcp-oopif");
    let log = home.path().join("host.log");
    let log_arg = log.display().to_string();
    let (args, env) = host_args(&home, &[chrome.profile.path()], &["--log", &log_arg]);
    let mcp = connect("porthole", &args, &env).await;

    ok(&mcp, "navigate", json!({"url": url("/xsite")})).await;
    eval_until(&mcp, "window.frameLoads.join(',')", json!("1")).await;
    // Chromium really put the frame in a process of its own (else this tests nothing).
    let frame = frame_target(&probe, "1").await;
    let in_frame = |expr: &'static str| {
        let probe = &probe;
        let frame = frame.clone();
        async move { probe.eval(&frame, expr).await }
    };

    // The frame's controls are in the snapshot, with refs, under the <iframe>.
    let snap = ok(&mcp, "read_page", json!({})).await;
    let iframe_line = snap
        .lines()
        .position(|l| l.contains("iframe \"Cross frame\""))
        .unwrap_or_else(|| panic!("no iframe line in:\n{snap}"));
    let button_line = snap
        .lines()
        .position(|l| l.contains("button \"Cross button\""))
        .unwrap_or_else(|| panic!("the frame's button is missing:\n{snap}"));
    assert!(button_line > iframe_line, "{snap}");
    assert!(snap.contains("textbox \"Cross name\""), "{snap}");
    assert!(!snap.contains("not readable"), "{snap}");

    // Reading again (several times) reuses the one frame session; the refs stay usable.
    for _ in 0..3 {
        let again = ok(&mcp, "read_page", json!({})).await;
        assert_eq!(
            ref_of(&again, "button \"Cross button\""),
            ref_of(&snap, "button \"Cross button\""),
            "{again}"
        );
    }
    assert_eq!(
        log_count(&log, "frame_session_attached"),
        1,
        "one attach for four reads"
    );
    assert_eq!(log_count(&log, "frame_session_detached"), 0);

    // A click by ref lands inside the frame, at the frame's offset.
    let button = ref_of(&snap, "button \"Cross button\"");
    ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": button.clone()}),
    )
    .await;
    porthole_tests::eventually(
        "the frame's button to say it was clicked",
        Duration::from_secs(10),
        || async {
            (in_frame("document.getElementById('xb').textContent").await == json!("Clicked inside"))
                .then_some(())
        },
    )
    .await;
    let after = ok(&mcp, "read_page", json!({})).await;
    assert!(after.contains("button \"Clicked inside\""), "{after}");
    // The main page's own button was not hit.
    assert_eq!(
        super::harness::eval(&mcp, "document.getElementById('top').textContent").await,
        json!("Top button")
    );

    // form_input reaches a field inside the frame.
    let field = ref_of(&after, "textbox \"Cross name\"");
    ok(
        &mcp,
        "form_input",
        json!({"ref": field.clone(), "value": "typed across origins"}),
    )
    .await;
    assert_eq!(
        in_frame("document.getElementById('xname').value").await,
        json!("typed across origins")
    );

    // The frame navigates: its old refs are refused, never used on the new document.
    ok(
        &mcp,
        "evaluate",
        json!({"expression": "document.getElementById('x').src = 'http://localhost:' + location.port + '/xframe?v=2'; 1"}),
    )
    .await;
    eval_until(&mcp, "window.frameLoads.join(',')", json!("1,2")).await;
    let e = err(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": button}),
    )
    .await;
    assert!(e.contains("read_page again"), "{e}");
    let e = err(&mcp, "form_input", json!({"ref": field, "value": "x"})).await;
    assert!(e.contains("read_page again"), "{e}");
    let snap2 = ok(&mcp, "read_page", json!({})).await;
    let button2 = ref_of(&snap2, "button \"Cross button v2\"");
    let top = ref_of(&snap2, "button \"Top button\"");
    ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": button2.clone()}),
    )
    .await;
    let frame2 = frame_target(&probe, "2").await;
    probe
        .eval_until(
            &frame2,
            "document.getElementById('xb').textContent",
            json!("Clicked inside"),
        )
        .await;

    // The page navigates: refs of the old page and of its frame are refused.
    ok(&mcp, "navigate", json!({"url": url("/xsite")})).await;
    eval_until(&mcp, "window.frameLoads.join(',')", json!("1")).await;
    let e = err(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": button2}),
    )
    .await;
    assert!(e.contains("read_page again"), "{e}");
    let e = err(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": top}),
    )
    .await;
    assert!(e.contains("read_page again"), "{e}");

    // Fresh reads work; the old frame's session is let go and the count stays bounded.
    let attached = log_count(&log, "frame_session_attached");
    let mut snap3 = String::new();
    for _ in 0..3 {
        snap3 = ok(&mcp, "read_page", json!({})).await;
    }
    assert!(snap3.contains("button \"Cross button\""), "{snap3}");
    assert_eq!(
        log_count(&log, "frame_session_attached"),
        attached + 1,
        "one new attach for the new frame, however often it is read"
    );
    assert!(log_count(&log, "frame_session_detached") >= 1);
    assert!(
        attached <= 2,
        "{attached} attaches before the page navigated"
    );
    ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap3, "button \"Cross button\"")}),
    )
    .await;
    let frame3 = frame_target(&probe, "1").await;
    probe
        .eval_until(
            &frame3,
            "document.getElementById('xb').textContent",
            json!("Clicked inside"),
        )
        .await;
}
