//! Frames of tool calls are paced (issue 19, `timeline::pace`): an agent calling back to back
//! gets every call recorded in order, each with a frame, but at most one capture of its tab a
//! second; calls held within a second share the capture taken after the last of them, so the
//! timeline ends on what the page became.

use std::time::{Duration, Instant};

use porthole_tests::daemon::DaemonOptions;
use porthole_tests::eventually;
use serde_json::json;

use super::{daemon_on_page, events, frame, owner_act, serve_pages, REPAINT};

/// Calls made back to back.
const CALLS: usize = 12;

/// The last call: hides the noise and paints the page green.
const GO_GREEN: &str = "(() => { document.getElementById('c').style.display = 'none'; \
    document.body.style.background = 'rgb(0, 200, 0)'; return 1; })()";

#[tokio::test]
async fn back_to_back_calls_share_captures_and_the_last_shows_the_end() {
    let pages = serve_pages().await;
    let channel = "tl-paced";
    let daemon = daemon_on_page(DaemonOptions::default(), channel, &format!("{pages}/noise")).await;
    let started = Instant::now();
    for n in 0..CALLS {
        let expression = if n + 1 == CALLS { GO_GREEN } else { REPAINT };
        owner_act(
            &daemon,
            channel,
            "evaluate",
            json!({ "expression": expression }),
        )
        .await;
    }
    let took = started.elapsed();
    let all = eventually("every call recorded", Duration::from_secs(30), || async {
        let all = events(&daemon, channel).await;
        let count = all.iter().filter(|e| e["tool"] == "evaluate").count();
        (count == CALLS).then_some(all)
    })
    .await;
    let calls: Vec<_> = all.iter().filter(|e| e["tool"] == "evaluate").collect();
    let seqs: Vec<u64> = calls.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    let ats: Vec<&str> = calls.iter().map(|e| e["at"].as_str().unwrap()).collect();
    assert!(ats.windows(2).all(|w| w[0] <= w[1]), "{ats:?}");
    // Every call has a frame, but there is at most one capture a second, plus the first
    // call's and the last one's (each repaint makes a new image, so frames differ only by
    // capture).
    let mut frames: Vec<&str> = calls
        .iter()
        .map(|e| {
            e["frame_id"]
                .as_str()
                .unwrap_or_else(|| panic!("a call without a frame: {e}"))
        })
        .collect();
    frames.dedup();
    let bound = took.as_secs() as usize + 2;
    assert!(
        frames.len() <= bound,
        "{} captures for {CALLS} calls in {took:?} (at most {bound})",
        frames.len()
    );
    // The last call's frame shows the page after it: green, no noise.
    let last = calls.last().unwrap();
    let id = last["frame_id"]
        .as_str()
        .unwrap_or_else(|| panic!("the last call has no frame: {last}"));
    let (status, jpeg) = frame(&daemon, channel, id).await;
    assert_eq!(status, 200);
    let image = image::load_from_memory(&jpeg).unwrap().to_rgb8();
    let centre = image.get_pixel(image.width() / 2, image.height() / 2);
    assert!(
        centre[1] > 150 && centre[0] < 60 && centre[2] < 60,
        "the last frame's centre is {centre:?}, not green"
    );
}
