//! The approval card of the bundled panel (DESIGN.md §20), in a real headless Chromium with a
//! real agent token: the card names the agent and the act and shows the script; Decline
//! refuses it (the agent reads that the person declined), "Always on this site" lets a new
//! site load and covers it from then on.

use std::time::Duration;

use porthole_tests::chromium::BareChromium;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::pages::PageServer;
use serde_json::json;

use super::{PanelPage, PANE};

/// Is `#id` in the pane's shadow root shown (not hidden, with a box)?
fn shown(id: &str) -> String {
    format!(
        "(() => {{ const e = {PANE}.getElementById('{id}'); return !!e && !e.hidden && e.getBoundingClientRect().height > 0; }})()"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_card_shows_the_act_and_its_buttons_answer_it() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let panel = PanelPage::open_panel(&browser, &daemon, "consent").await;
    let (status, body) = daemon
        .post(
            "/api/browser/agents",
            &json!({"channel_id": "consent", "name": "Robo", "confirm": ["evaluate", "new_site"]}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let agent = daemon.caller(body["token"].as_str().unwrap());
    let call = |tool: &'static str, args: serde_json::Value| {
        let agent = agent.clone();
        tokio::spawn(async move {
            tokio::time::timeout(Duration::from_secs(60), agent.act_text(tool, args))
                .await
                .expect("the call ended")
        })
    };

    // A new site: the card names the agent and the page; Always on this site.
    let going = call("navigate", json!({"url": pages.url("/second.html")}));
    panel.until("the approval card", &shown("approval")).await;
    let card = panel
        .eval(&format!("{PANE}.getElementById('approval').textContent"))
        .await;
    let card = card.as_str().unwrap_or_default().to_string();
    assert!(
        card.contains("Robo") && card.contains("new site") && card.contains("/second.html"),
        "{card}"
    );
    panel.click_in_pane("approval-always").await;
    let (is_error, text) = going.await.unwrap();
    assert!(!is_error, "{text}");
    panel
        .until("the card to close", &format!("!{}", shown("approval")))
        .await;

    // The script is shown; Decline refuses it.
    let running = call(
        "evaluate",
        json!({"expression": "6 * 7 /* shown to the person */"}),
    );
    panel.until("the approval card", &shown("approval")).await;
    let detail = panel
        .eval(&format!(
            "{PANE}.getElementById('approval-detail').textContent"
        ))
        .await;
    assert_eq!(detail, "6 * 7 /* shown to the person */");
    panel.click_in_pane("approval-decline").await;
    let (is_error, text) = running.await.unwrap();
    assert!(is_error && text.contains("the person declined"), "{text}");
    panel
        .until("the card to close", &format!("!{}", shown("approval")))
        .await;
    panel
        .until(
            "no approval waiting in the pane's state",
            "window.porthole.approvals.length === 0",
        )
        .await;

    // The remembered site loads in a new tab (a new site for that tab) without a card.
    let (is_error, text) = call("new_tab", json!({"url": pages.url("/index.html")}))
        .await
        .unwrap();
    assert!(!is_error, "{text}");
    assert_eq!(panel.eval(&shown("approval")).await, json!(false));
}
