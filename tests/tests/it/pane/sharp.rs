//! Frames at a pixel scale above 1 (DESIGN.md §15, issue 35), through the pane's WebSocket
//! against the real daemon and Chromium: while the page moves, frames keep coming at the CSS
//! size (the fast cast); once it stands still, the last frame every pane watching the tab
//! gets is full size and shows the page as it stands. At scale 1 every frame is full size, as
//! before. The page is `tests/pages/pane_sharp/moving.html`.

use std::time::Duration;

use porthole_tests::pages::PageServer;
use porthole_tests::pane::{Pane, Received};
use porthole_tests::pane_on_page::PaneOnPage;
use serde_json::json;

/// A pane on the moving page of a fresh channel, and a second pane watching the same tab.
async fn two_panes(channel: &str) -> (PaneOnPage, Pane) {
    let url = format!("{}/moving", PageServer::area("pane_sharp").await.base());
    let s = PaneOnPage::open(channel, &url, "Moving").await;
    let other = Pane::connect(&s.daemon.addr, &s.daemon.token).await;
    other.start(channel).await;
    other.watch().await;
    (s, other)
}

/// Width, height and the middle pixel's colour of a JPEG frame.
fn frame_look(jpeg: &[u8]) -> ((u32, u32), [u8; 3]) {
    let image = image::load_from_memory_with_format(jpeg, image::ImageFormat::Jpeg)
        .unwrap()
        .to_rgb8();
    let middle = image.get_pixel(image.width() / 2, image.height() / 2).0;
    ((image.width(), image.height()), middle)
}

fn is_red([r, g, b]: [u8; 3]) -> bool {
    r > 200 && g < 60 && b < 60
}

/// Waits until the newest frame `pane` got is `size` pixels and red in the middle (the page
/// stood still in red).
async fn last_frame_is_red_at(pane: &Pane, size: (u32, u32)) {
    pane.wait(
        &format!("a red {}×{} newest frame", size.0, size.1),
        Duration::from_secs(30),
        |r: &Received| {
            let (seen, middle) = frame_look(r.frames.last()?);
            (seen == size && is_red(middle)).then_some(())
        },
    )
    .await;
}

/// Moves the page until `pane` got `frames` frames more; returns their sizes.
async fn frames_while_moving(s: &PaneOnPage, frames: usize) -> Vec<(u32, u32)> {
    let before = s.pane.frame_count();
    s.probe.eval(&s.tab, "move()").await;
    s.pane
        .wait(
            &format!("{frames} frames while the page moves"),
            Duration::from_secs(30),
            |r| {
                let new = r.frame_count - before;
                let kept = r.frames.len().min(new);
                (new >= frames).then(|| {
                    r.frames[r.frames.len() - kept..]
                        .iter()
                        .map(|f| frame_look(f).0)
                        .collect()
                })
            },
        )
        .await
}

/// Asks `scale` and waits for the still page's frame at that scale.
async fn cast_at(s: &PaneOnPage, scale: u32) {
    s.pane.send(
        json!({"type": "screencast", "width": 800, "height": 600, "quality": 60, "scale": scale}),
    );
    s.pane
        .wait("a full-size frame", Duration::from_secs(30), |r| {
            let (size, _) = frame_look(r.frames.last()?);
            (size == (800 * scale, 600 * scale)).then_some(())
        })
        .await;
}

#[tokio::test]
async fn at_scale_two_motion_comes_at_css_size_and_the_still_page_ends_full_size_in_both_panes() {
    let (s, other) = two_panes("ps-two").await;
    cast_at(&s, 2).await;
    let moving = frames_while_moving(&s, 10).await;
    assert!(
        moving.contains(&(800, 600)),
        "frames of a moving page at scale 2 come at the CSS size (the fast cast): {moving:?}"
    );
    s.probe.eval(&s.tab, "stand('#f00')").await;
    last_frame_is_red_at(&s.pane, (1600, 1200)).await;
    last_frame_is_red_at(&other, (1600, 1200)).await;
    // And again: the page moves and stands still once more.
    frames_while_moving(&s, 10).await;
    s.probe.eval(&s.tab, "stand('#f00')").await;
    last_frame_is_red_at(&s.pane, (1600, 1200)).await;
    last_frame_is_red_at(&other, (1600, 1200)).await;
}

#[tokio::test]
async fn at_scale_one_every_frame_is_full_size_moving_or_still() {
    let (s, other) = two_panes("ps-one").await;
    cast_at(&s, 1).await;
    let moving = frames_while_moving(&s, 10).await;
    assert!(moving.iter().all(|&size| size == (800, 600)), "{moving:?}");
    s.probe.eval(&s.tab, "stand('#f00')").await;
    last_frame_is_red_at(&s.pane, (800, 600)).await;
    last_frame_is_red_at(&other, (800, 600)).await;
}

/// Each sharp capture attaches a second session to the tab and detaches it afterwards; Chrome's
/// `Target.detachedFromTarget` for it names the tab. Only the tab's own session leaving ends
/// the tab: after two captures (two detaches) it is still the one tab, shown and cast.
#[tokio::test]
async fn a_sharp_captures_session_leaving_the_tab_leaves_the_tab_open() {
    let url = format!("{}/moving", PageServer::area("pane_sharp").await.base());
    let s = PaneOnPage::open("ps-detach", &url, "Moving").await;
    // A 1600×1200 frame at scale 2 comes only from a sharp capture: one capture done.
    cast_at(&s, 2).await;
    frames_while_moving(&s, 10).await;
    s.probe.eval(&s.tab, "stand('#f00')").await;
    last_frame_is_red_at(&s.pane, (1600, 1200)).await;
    // A title change is reported through the same ordered events as the captures' detaches,
    // after them: once the pane has it, the session has read both detaches.
    let mark = s.pane.mark();
    s.probe.eval(&s.tab, "document.title = 'Still'").await;
    let info = s.pane.title_is(mark, "Still").await;
    assert_eq!(info["target_id"], s.tab.as_str());
    let received = s.pane.received.lock().unwrap();
    let closed: Vec<&serde_json::Value> = received
        .messages
        .iter()
        .filter(|m| m["type"] == "tab_closed" || m["type"] == "tab_created")
        .collect();
    assert!(closed.is_empty(), "no tab closed nor opened: {closed:?}");
    let tabs = received
        .messages
        .iter()
        .rev()
        .find(|m| m["type"] == "tabs")
        .expect("a tab list");
    assert_eq!(tabs["tabs"].as_array().map(Vec::len), Some(1), "{tabs}");
    assert_eq!(tabs["tabs"][0]["target_id"], s.tab.as_str(), "{tabs}");
    assert_eq!(tabs["active_target_id"], s.tab.as_str(), "{tabs}");
}
