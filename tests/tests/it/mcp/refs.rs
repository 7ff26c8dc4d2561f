//! Ref books live on the session, one per tab: `read_page` on two tabs at once (through the
//! engine, `porthole::tools::run_in_tab`) gives each tab refs that work, numbering carries on
//! across reads, and a closed tab's book is dropped.

use std::sync::Arc;
use std::time::Duration;

use porthole::browser::{BrowserSession, Ownership, SessionOptions};
use porthole::cdp::CdpConnection;
use porthole::channel_id::ChannelId;
use porthole::mode::Mode;
use porthole::providers::DownloadPlace;
use porthole::tools::run_in_tab;
use porthole_mcp::vocabulary::ToolCall;
use porthole_tests::chromium::BareChromium;
use serde_json::{json, Value};

use super::harness::ref_of;

async fn tool(browser: &Arc<BrowserSession>, tab: &str, name: &str, args: Value) -> String {
    let call = ToolCall::from_name(name, &args).expect("valid call");
    let out = run_in_tab(browser, tab, &call).await;
    let text = out.joined_text();
    assert!(!out.is_error, "{name} {args} on {tab} failed: {text}");
    text
}

/// Polls `read_page` on `tab` until it shows `needle` (deadline 15 s).
async fn read_until(browser: &Arc<BrowserSession>, tab: &str, needle: &str) -> String {
    porthole_tests::eventually(needle, Duration::from_secs(15), || async {
        let call = ToolCall::from_name("read_page", &json!({})).unwrap();
        let text = run_in_tab(browser, tab, &call).await.joined_text();
        text.contains(needle).then_some(text)
    })
    .await
}

fn ref_number(r: &str) -> u64 {
    r.trim_start_matches('e').parse().unwrap()
}

#[tokio::test]
async fn concurrent_read_page_on_two_tabs_gives_refs_that_work() {
    let pages = porthole_tests::pages::PageServer::area("mcp").await;
    let chromium = BareChromium::launch().await;
    let cdp = CdpConnection::connect(&chromium.ws_url, Duration::from_secs(10))
        .await
        .unwrap();
    let browser = BrowserSession::open(
        ChannelId::parse("refs-two-tabs").unwrap(),
        Mode::Local,
        cdp,
        SessionOptions {
            ownership: Ownership::AllTabs,
            screen: (1280, 800),
            downloads: DownloadPlace::Daemon,
            downloads_root: None,
            download_limits: Default::default(),
            settle: Default::default(),
            reach: Default::default(),
        },
    )
    .await
    .unwrap();
    // A: same-origin iframe + shadow root; B: an out-of-process (cross-site) iframe, whose
    // refs the tab's book maps to the frame's own session.
    let a = browser
        .new_tab(Some(&format!("http://{pages}/form")))
        .await
        .unwrap()
        .target_id;
    let b = browser
        .new_tab(Some(&format!("http://{pages}/xsite")))
        .await
        .unwrap()
        .target_id;
    read_until(&browser, &a, "Shadow button").await;
    read_until(&browser, &b, "Cross button").await;

    let mut first: Option<(String, String)> = None;
    for round in 0..5 {
        let (snap_a, snap_b) = tokio::join!(
            tool(&browser, &a, "read_page", json!({})),
            tool(&browser, &b, "read_page", json!({})),
        );
        let refs = (
            ref_of(&snap_a, "textbox \"Name\""),
            ref_of(&snap_b, "button \"Cross button\""),
        );
        // The same element keeps its ref across reads (the books never restart).
        match &first {
            None => first = Some(refs.clone()),
            Some(f) => assert_eq!(&refs, f, "round {round}:\nA:\n{snap_a}\nB:\n{snap_b}"),
        }
    }
    let (name, cross) = first.unwrap();

    // Both tabs' refs act, at the same time.
    let (filled, clicked) = tokio::join!(
        tool(
            &browser,
            &a,
            "form_input",
            json!({"ref": name, "value": "Ada"})
        ),
        tool(
            &browser,
            &b,
            "computer",
            json!({"action": "left_click", "ref": cross})
        ),
    );
    assert!(filled.contains("Ada"), "{filled}");
    assert!(!clicked.is_empty());
    let after_a = read_until(&browser, &a, "value=\"Ada\"").await;
    read_until(&browser, &b, "Clicked inside").await;

    // A reload forgets the document's refs; the tab's numbering carries on past them.
    let session = browser.tab_session(&a).unwrap();
    browser
        .cdp()
        .call_on(&session, "Page.reload", json!({}))
        .await
        .unwrap();
    // The new document issues new refs (polled: the old document may answer first).
    let renamed = porthole_tests::eventually(
        "refs of the reloaded page",
        Duration::from_secs(15),
        || async {
            let call = ToolCall::from_name("read_page", &json!({})).unwrap();
            let text = run_in_tab(&browser, &a, &call).await.joined_text();
            if !text.contains("textbox \"Name\"") {
                return None;
            }
            let r = ref_of(&text, "textbox \"Name\"");
            (r != name).then_some(r)
        },
    )
    .await;
    assert!(
        ref_number(&renamed) > ref_number(&name),
        "{renamed} after {name}:\n{after_a}"
    );

    // A closed tab's book goes with it.
    assert!(browser.refs().tabs().contains(&a));
    browser.close_tab(&a).await.unwrap();
    assert!(!browser.refs().tabs().contains(&a));
    assert!(browser.refs().tabs().contains(&b));
    browser.close("test over");
}
