//! Cross-origin (out-of-process) iframes through `porthole mcp-host-browser`: a page on
//! `127.0.0.1:<port>` embeds a frame from `localhost:<port>`, another site, which Chromium runs
//! in a process of its own. `read_page` shows the frame's controls with refs; a click by ref
//! lands inside it (offset by the frame's position) and `form_input` fills its field, both
//! read back through a separate CDP connection; refs from before the frame or the page
//! navigated are refused with "call read_page again"; and repeated `read_page` calls keep one
//! session per frame instead of attaching again each time.

use std::path::{Path, PathBuf};
use std::time::Duration;

use porthole_tests::devtools_port::Probe;
use porthole_tests::pages::PageServer;
use porthole_tests::TempDir;
use serde_json::json;

use super::harness::{connect, err, eval_until, ok, ref_of, Client};
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

/// The user's Chrome (with a probe into it), `porthole mcp-host-browser` on it logging to
/// `log`, and the MCP pages.
struct Oopif {
    _pages: PageServer,
    port: u16,
    _chrome: UserChrome,
    probe: Probe,
    _home: TempDir,
    log: PathBuf,
    mcp: Client,
}

impl Oopif {
    async fn start() -> Self {
        let pages = PageServer::area("mcp").await;
        let port = pages.port();
        let chrome = UserChrome::start(&format!("http://127.0.0.1:{port}/user")).await;
        let probe = Probe::connect(chrome.profile.path()).await;
        let home = TempDir::new("mcp-oopif");
        let log = home.path().join("host.log");
        let log_arg = log.display().to_string();
        let (args, env) = host_args(&home, &[chrome.profile.path()], &["--log", &log_arg]);
        let mcp = connect("porthole", &args, &env).await;
        Self {
            _pages: pages,
            port,
            _chrome: chrome,
            probe,
            _home: home,
            log,
            mcp,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// `expr` evaluated inside the frame target `frame` (through the probe, not the tools).
    async fn in_frame(&self, frame: &str, expr: &str) -> serde_json::Value {
        self.probe.eval(frame, expr).await
    }

    fn log_count(&self, event: &str) -> usize {
        log_count(&self.log, event)
    }
}

/// One page through every step in turn (each step works on what the earlier ones left).
#[tokio::test]
async fn cross_origin_iframes_are_read_clicked_and_filled_by_ref() {
    let s = Oopif::start().await;
    let (snap, frame) = reads_the_frame_with_one_session(&s).await;
    let (button, field) = clicks_and_fills_inside_the_frame(&s, &snap, &frame).await;
    let (button2, top) = refuses_refs_from_before_the_frame_navigated(&s, button, field).await;
    refuses_refs_from_before_the_page_navigated(&s, button2, top).await;
    reads_afresh_with_one_new_frame_session(&s).await;
}

/// The frame's controls are in the snapshot, with refs, under the `<iframe>`; reading again
/// reuses the one frame session. Returns the snapshot and the frame's target.
async fn reads_the_frame_with_one_session(s: &Oopif) -> (String, String) {
    let mcp = &s.mcp;
    ok(mcp, "navigate", json!({"url": s.url("/xsite")})).await;
    eval_until(mcp, "window.frameLoads.join(',')", json!("1")).await;
    // Chromium really put the frame in a process of its own (else this tests nothing).
    let frame = frame_target(&s.probe, "1").await;

    let snap = ok(mcp, "read_page", json!({})).await;
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
        let again = ok(mcp, "read_page", json!({})).await;
        assert_eq!(
            ref_of(&again, "button \"Cross button\""),
            ref_of(&snap, "button \"Cross button\""),
            "{again}"
        );
    }
    assert_eq!(
        s.log_count("frame_session_attached"),
        1,
        "one attach for four reads"
    );
    assert_eq!(s.log_count("frame_session_detached"), 0);
    (snap, frame)
}

/// A click by ref lands inside the frame, at the frame's offset, and `form_input` reaches a
/// field inside it. Returns the button's and the field's refs.
async fn clicks_and_fills_inside_the_frame(s: &Oopif, snap: &str, frame: &str) -> (String, String) {
    let mcp = &s.mcp;
    let button = ref_of(snap, "button \"Cross button\"");
    ok(
        mcp,
        "computer",
        json!({"action": "left_click", "ref": button.clone()}),
    )
    .await;
    porthole_tests::eventually(
        "the frame's button to say it was clicked",
        Duration::from_secs(10),
        || async {
            (s.in_frame(frame, "document.getElementById('xb').textContent")
                .await
                == json!("Clicked inside"))
            .then_some(())
        },
    )
    .await;
    let after = ok(mcp, "read_page", json!({})).await;
    assert!(after.contains("button \"Clicked inside\""), "{after}");
    // The main page's own button was not hit.
    assert_eq!(
        super::harness::eval(mcp, "document.getElementById('top').textContent").await,
        json!("Top button")
    );

    let field = ref_of(&after, "textbox \"Cross name\"");
    ok(
        mcp,
        "form_input",
        json!({"ref": field.clone(), "value": "typed across origins"}),
    )
    .await;
    assert_eq!(
        s.in_frame(frame, "document.getElementById('xname').value")
            .await,
        json!("typed across origins")
    );
    (button, field)
}

/// The frame navigates: its old refs are refused, never used on the new document; its new
/// button is clicked by a fresh ref. Returns that ref and the main page's button's.
async fn refuses_refs_from_before_the_frame_navigated(
    s: &Oopif,
    button: String,
    field: String,
) -> (String, String) {
    let mcp = &s.mcp;
    ok(
        mcp,
        "evaluate",
        json!({"expression": "document.getElementById('x').src = 'http://localhost:' + location.port + '/xframe?v=2'; 1"}),
    )
    .await;
    eval_until(mcp, "window.frameLoads.join(',')", json!("1,2")).await;
    let e = err(
        mcp,
        "computer",
        json!({"action": "left_click", "ref": button}),
    )
    .await;
    assert!(e.contains("read_page again"), "{e}");
    let e = err(mcp, "form_input", json!({"ref": field, "value": "x"})).await;
    assert!(e.contains("read_page again"), "{e}");
    let snap2 = ok(mcp, "read_page", json!({})).await;
    let button2 = ref_of(&snap2, "button \"Cross button v2\"");
    let top = ref_of(&snap2, "button \"Top button\"");
    ok(
        mcp,
        "computer",
        json!({"action": "left_click", "ref": button2.clone()}),
    )
    .await;
    let frame2 = frame_target(&s.probe, "2").await;
    s.probe
        .eval_until(
            &frame2,
            "document.getElementById('xb').textContent",
            json!("Clicked inside"),
        )
        .await;
    (button2, top)
}

/// The page navigates: refs of the old page and of its frame are refused.
async fn refuses_refs_from_before_the_page_navigated(s: &Oopif, button2: String, top: String) {
    let mcp = &s.mcp;
    ok(mcp, "navigate", json!({"url": s.url("/xsite")})).await;
    eval_until(mcp, "window.frameLoads.join(',')", json!("1")).await;
    let e = err(
        mcp,
        "computer",
        json!({"action": "left_click", "ref": button2}),
    )
    .await;
    assert!(e.contains("read_page again"), "{e}");
    let e = err(mcp, "computer", json!({"action": "left_click", "ref": top})).await;
    assert!(e.contains("read_page again"), "{e}");
}

/// Fresh reads work; the old frame's session is let go and the count stays bounded.
async fn reads_afresh_with_one_new_frame_session(s: &Oopif) {
    let mcp = &s.mcp;
    let attached = s.log_count("frame_session_attached");
    let mut snap3 = String::new();
    for _ in 0..3 {
        snap3 = ok(mcp, "read_page", json!({})).await;
    }
    assert!(snap3.contains("button \"Cross button\""), "{snap3}");
    assert_eq!(
        s.log_count("frame_session_attached"),
        attached + 1,
        "one new attach for the new frame, however often it is read"
    );
    assert!(s.log_count("frame_session_detached") >= 1);
    assert!(
        attached <= 2,
        "{attached} attaches before the page navigated"
    );
    ok(
        mcp,
        "computer",
        json!({"action": "left_click", "ref": ref_of(&snap3, "button \"Cross button\"")}),
    )
    .await;
    let frame3 = frame_target(&s.probe, "1").await;
    s.probe
        .eval_until(
            &frame3,
            "document.getElementById('xb').textContent",
            json!("Clicked inside"),
        )
        .await;
}
