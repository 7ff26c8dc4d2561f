//! A same-site cross-origin iframe through `porthole mcp-host-browser`: a page on
//! `127.0.0.1:<port>` embeds a frame from `127.0.0.1:<other port>` (a second page server). The
//! origins differ, so the page's world cannot read the frame's document, but the site is the
//! same, so Chromium keeps the frame in the page's own process with no target of its own (the
//! test checks that, else it tests nothing). `read_page` shows the frame's controls with
//! refs, `find` finds its text, a click by ref runs the frame's handler and `form_input` fills
//! its field — each seen by the page, to which the frame reports with `postMessage`.

use std::time::Duration;

use porthole_tests::devtools_port::Probe;
use porthole_tests::pages::PageServer;
use porthole_tests::TempDir;
use serde_json::json;

use super::harness::{connect, eval_until, ok, ref_of};
use super::host::{host_args, UserChrome};

#[tokio::test]
async fn same_site_cross_origin_frames_are_read_found_clicked_and_filled() {
    let pages = PageServer::area("mcp").await;
    let other = PageServer::area("mcp").await;
    pages.set("OTHER", &other.port().to_string());
    let chrome = UserChrome::start(&pages.url("/user")).await;
    chrome.user_tab().await;
    let probe = Probe::connect(chrome.profile.path()).await;
    let home = TempDir::new("mcp-same-site");
    let (args, env) = host_args(&home, &[chrome.profile.path()], &[]);
    let mcp = connect("porthole", &args, &env).await;

    ok(&mcp, "navigate", json!({"url": pages.url("/samesite")})).await;
    eval_until(&mcp, "window.said.join(',')", json!("loaded")).await;
    // The frame is another origin (the page cannot read it) and has no target of its own.
    assert_eq!(
        super::harness::eval(
            &mcp,
            "(() => { try { return !!document.getElementById('s').contentDocument; } \
             catch (_) { return 'thrown'; } })()"
        )
        .await,
        json!(false)
    );
    let targets = probe
        .cdp
        .call("Target.getTargets", json!({}))
        .await
        .expect("targets");
    let frame_targets: Vec<_> = targets["targetInfos"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["type"] == "iframe")
        .collect();
    assert!(frame_targets.is_empty(), "{frame_targets:?}");

    // read_page: the frame's controls, with refs, under its <iframe>.
    let snap = ok(&mcp, "read_page", json!({})).await;
    let iframe_line = snap
        .lines()
        .position(|l| l.contains("iframe \"Same-site frame\""))
        .unwrap_or_else(|| panic!("no iframe line in:\n{snap}"));
    let button_line = snap
        .lines()
        .position(|l| l.contains("button \"Frame button\""))
        .unwrap_or_else(|| panic!("the frame's button is missing:\n{snap}"));
    assert!(button_line > iframe_line, "{snap}");
    assert!(snap.contains("textbox \"Frame name\""), "{snap}");
    assert!(!snap.contains("not readable"), "{snap}");

    // find: the frame's text.
    let found = ok(&mcp, "find", json!({"query": "Framed note"})).await;
    assert!(found.contains("Framed note from the other port"), "{found}");

    // A click by ref runs the frame's own handler (and not the page's button).
    ok(
        &mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap, "button \"Frame button\"")}),
    )
    .await;
    eval_until(&mcp, "window.said.join(',')", json!("loaded,clicked")).await;
    assert_eq!(
        super::harness::eval(&mcp, "document.getElementById('top').textContent").await,
        json!("Top button")
    );
    let after = ok(&mcp, "read_page", json!({})).await;
    assert!(after.contains("button \"Clicked in frame\""), "{after}");

    // form_input fills the frame's field; the frame tells its page what it now holds.
    ok(
        &mcp,
        "form_input",
        json!({"ref": ref_of(&after, "textbox \"Frame name\""), "value": "same site"}),
    )
    .await;
    porthole_tests::eventually(
        "the frame to report its field's value",
        Duration::from_secs(10),
        || async {
            let said = super::harness::eval(&mcp, "window.said.join(',')").await;
            said.as_str()
                .is_some_and(|s| s.ends_with("value=same site"))
                .then_some(())
        },
    )
    .await;
}
