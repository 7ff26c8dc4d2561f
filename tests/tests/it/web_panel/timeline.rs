//! The timeline strip of `<porthole-pane>` in the bundled panel, in a real headless Chromium:
//! events an agent made before the panel opened are read from the API, a later one arrives
//! live, the person filters to the agent, picks an event and sees the frame kept with it, and
//! exports the span through their own browser. The test saves a screenshot of the open strip
//! (target/pane-timeline.png; the README's picture is one of these).

use std::time::Duration;

use porthole_tests::chromium::BareChromium;
use porthole_tests::daemon::TestDaemon;
use porthole_tests::pages::PageServer;
use serde_json::{json, Value};

use super::{PanelPage, PANE};

/// The strip's state, as `TimelineStrip.snapshot()` gives it.
const STRIP: &str = "document.querySelector('porthole-pane').timeline.snapshot()";

/// The strip itself (its `events`, all of them, whatever the filter).
const TIMELINE: &str = "document.querySelector('porthole-pane').timeline";

/// Runs `navigate` to `url` as the agent whose token is `token`.
async fn agent_navigates(daemon: &TestDaemon, token: &str, url: &str) {
    daemon
        .caller(token)
        .act_ok("navigate", json!({ "url": url }))
        .await;
}

#[tokio::test]
async fn the_strip_shows_who_did_what_with_its_frame_and_exports_it() {
    let daemon = TestDaemon::start().await;
    let pages = PageServer::start().await;
    let channel = "tl-panel";
    let (agent_id, agent) = daemon.add_agent(channel, "scout", &[]).await;
    // Before any pane: the strip must read these from the API.
    agent_navigates(&daemon, &agent, &pages.url("/second")).await;

    let user_browser = BareChromium::launch_with(&["--window-size=1000,800"]).await;
    let panel = PanelPage::open_panel(&user_browser, &daemon, channel).await;
    panel.click_in_pane("timeline-toggle").await;
    panel
        .until(
            "the agent's earlier navigate in the strip",
            &format!("(() => {{ const s = {STRIP}; return s.open && s.events >= 1 && s.actors.includes('agent:{agent_id}'); }})()"),
        )
        .await;
    // After the pane connected: this one arrives as a live `timeline_event`.
    agent_navigates(&daemon, &agent, &pages.url("/input")).await;
    panel
        .until(
            "the agent's second navigate, live",
            "document.querySelector('porthole-pane').timeline.events \
             .filter((e) => e.kind === 'tool' && (e.url || '').endsWith('/input')).length === 1",
        )
        .await;

    // Someone else's event is in the strip too, for the filter to hide.
    let others = panel
        .until(
            "an event that is not the agent's",
            &format!("{TIMELINE}.events.filter((e) => !(e.actor && e.actor.agent_id === '{agent_id}')).length"),
        )
        .await;
    // Only the agent's events, then the last of them picked with the mouse.
    panel
        .eval(&format!(
            "(() => {{ const f = {PANE}.querySelector('.timeline-filter'); f.value = 'agent:{agent_id}'; \
             f.dispatchEvent(new Event('change')); }})()"
        ))
        .await;
    let strip = panel.eval(STRIP).await;
    assert!(strip["shown"].as_u64().unwrap() >= 2, "{strip}");
    assert!(
        strip["shown"].as_u64() <= strip["events"].as_u64(),
        "{strip}"
    );
    // The marks drawn are the agent's events, every one, and nothing else: the others hidden.
    let drawn = panel
        .eval(&format!(
            "(() => {{ const t = {TIMELINE}; \
             return {{ marks: [...{PANE}.querySelectorAll('.timeline-mark')].map((m) => Number(m.dataset.seq)), \
             agents: t.events.filter((e) => e.actor && e.actor.agent_id === '{agent_id}').map((e) => e.seq), \
             events: t.events.length }}; }})()"
        ))
        .await;
    assert_eq!(drawn["marks"], drawn["agents"], "{drawn}");
    let hidden =
        drawn["events"].as_u64().unwrap() - drawn["marks"].as_array().unwrap().len() as u64;
    assert!(
        hidden >= others.as_u64().unwrap(),
        "the filter hid {hidden} of {others} others' events: {drawn}"
    );
    assert_eq!(
        strip["shown"],
        drawn["marks"].as_array().unwrap().len(),
        "{strip}"
    );
    let mark = panel
        .center_of_element(
            "the last mark's place",
            &format!("[...{PANE}.querySelectorAll('.timeline-mark')].at(-1)"),
        )
        .await;
    panel.click_at(mark).await;
    let line = panel
        .until(
            "the picked event's line and frame",
            &format!(
                "(() => {{ const s = {STRIP}; const img = {PANE}.querySelector('.timeline-frame'); \
                 return s.frameShown && img.complete && img.naturalWidth > 0 ? s.line : null; }})()"
            ),
        )
        .await;
    let line = line.as_str().unwrap();
    assert!(
        line.contains("scout") && line.contains("navigate"),
        "{line}"
    );
    assert!(
        line.contains("/input"),
        "the last event is the second navigate: {line}"
    );

    save_screenshot(&panel).await;
    export_through_the_persons_browser(&panel).await;
}

/// A picture of the panel with the strip open, under target/.
async fn save_screenshot(panel: &PanelPage) {
    panel.save_screenshot("pane-timeline.png").await;
}

/// The Export button saves one HTML file that holds the events.
async fn export_through_the_persons_browser(panel: &PanelPage) {
    let saves = panel.saves_downloads("timeline-saves").await;
    let ok = panel
        .eval(&format!(
            "{PANE}.querySelector('.timeline-export').click(), true"
        ))
        .await;
    assert_eq!(ok, json!(true));
    let html = porthole_tests::eventually(
        "the exported timeline saved by the person's browser",
        Duration::from_secs(30),
        || {
            let dir = saves.path().to_path_buf();
            async move {
                let file = std::fs::read_dir(&dir)
                    .ok()?
                    .filter_map(|e| e.ok())
                    .next()?;
                let text = std::fs::read_to_string(file.path()).ok()?;
                text.contains("</html>").then_some(text)
            }
        },
    )
    .await;
    assert!(html.contains("navigate"), "the export lists the events");
    let last_error: Value = panel.eval(&format!("{STRIP}.lastError")).await;
    assert_eq!(last_error, json!(""));
}
