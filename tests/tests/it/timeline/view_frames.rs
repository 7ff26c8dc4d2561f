//! A tool call's frame of a tab a pane watches is the screencast's own frame, not a
//! `Page.captureScreenshot` (issue 35: a capture makes Chrome encode the viewport again on
//! every recorded call): the kept JPEG is byte for byte one the pane was sent, and it shows
//! the page after the call.

use std::time::Duration;

use porthole_tests::daemon::TestDaemon;
use porthole_tests::eventually;
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use serde_json::json;

use super::{events, frame, owner_act};

/// Paints the counter page blue and hides its number.
const GO_BLUE: &str = "(() => { document.getElementById('n').style.display = 'none'; \
    document.body.style.background = 'rgb(0, 0, 220)'; return 1; })()";

#[tokio::test]
async fn a_watched_tabs_call_keeps_the_casts_frame_after_the_call() {
    let counter = PageServer::area("timeline").await.url("/counter");
    let daemon = TestDaemon::start().await;
    let channel = "tl-view-frames";
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(channel).await;
    pane.open_page(&counter, "Counter").await;
    // A cast quality no capture of the timeline uses (it captures at 60), so a captured
    // frame cannot match the pane's bytes by chance.
    let before = pane.frame_count();
    pane.send(json!({"type": "screencast", "quality": 85}));
    pane.frames_at_least(before + 1).await;

    owner_act(
        &daemon,
        channel,
        "evaluate",
        json!({ "expression": GO_BLUE }),
    )
    .await;
    let call = eventually("the call listed", Duration::from_secs(30), || async {
        events(&daemon, channel)
            .await
            .into_iter()
            .find(|e| e["tool"] == "evaluate")
    })
    .await;
    let id = call["frame_id"]
        .as_str()
        .unwrap_or_else(|| panic!("the call has no frame: {call}"));
    let (status, jpeg) = frame(&daemon, channel, id).await;
    assert_eq!(status, 200);
    let image = image::load_from_memory(&jpeg).unwrap().to_rgb8();
    let centre = image.get_pixel(image.width() / 2, image.height() / 2);
    assert!(
        centre[2] > 170 && centre[0] < 60 && centre[1] < 60,
        "the call's frame shows {centre:?} at its centre, not the page after the call (blue)"
    );
    let sent = pane.received.lock().unwrap().frames.contains(&jpeg);
    assert!(
        sent,
        "the call's frame ({} bytes) is none of the {} frames the pane was sent: a capture",
        jpeg.len(),
        pane.frame_count()
    );
}
