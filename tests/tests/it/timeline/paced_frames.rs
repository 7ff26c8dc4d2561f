//! Frames of tool calls are paced (issue 19, `timeline::pace`): an agent calling back to back
//! gets every call recorded in order, each with a frame, but at most one capture of its tab a
//! second; calls held within a second share the capture taken after the last of them, so the
//! timeline ends on what the page became.

use std::time::Duration;

use porthole_tests::daemon::DaemonOptions;
use porthole_tests::eventually;
use porthole_tests::pane::Pane;
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
    // A pane of the channel gets each event live.
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(channel).await;
    let mark = pane.mark();
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
    let all = eventually("every call recorded", Duration::from_secs(30), || async {
        let all = events(&daemon, channel).await;
        let count = all.iter().filter(|e| e["tool"] == "evaluate").count();
        (count == CALLS).then_some(all)
    })
    .await;
    let calls: Vec<_> = all.iter().filter(|e| e["tool"] == "evaluate").collect();
    let seqs: Vec<u64> = calls.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    // Held calls are written together and reach the pane as one notice: it is still sent
    // one `timeline_event` per call, in order.
    let live = pane
        .wait(
            "every call's timeline_event",
            Duration::from_secs(30),
            |r| {
                let live: Vec<u64> = r.messages[mark..]
                    .iter()
                    .filter(|m| m["type"] == "timeline_event" && m["tool"] == "evaluate")
                    .map(|m| m["seq"].as_u64().unwrap())
                    .collect();
                (live.len() >= CALLS).then_some(live)
            },
        )
        .await;
    assert_eq!(
        live, seqs,
        "the calls' live events, against the listed ones"
    );
    let ats: Vec<&str> = calls.iter().map(|e| e["at"].as_str().unwrap()).collect();
    assert!(ats.windows(2).all(|w| w[0] <= w[1]), "{ats:?}");
    // Every call has a frame (each repaint makes a new image, so frames differ only by
    // capture); calls in a row with one frame shared a capture.
    let mut groups: Vec<(&str, Vec<i64>)> = Vec::new();
    for call in &calls {
        let frame = call["frame_id"]
            .as_str()
            .unwrap_or_else(|| panic!("a call without a frame: {call}"));
        let at = at_ms(call["at"].as_str().unwrap());
        match groups.last_mut() {
            Some((id, ats)) if *id == frame => ats.push(at),
            _ => groups.push((frame, vec![at])),
        }
    }
    // At most one capture a second, as the daemon's own times of the calls show whatever the
    // machine's pace: a capture serves the calls made before it, the next one comes a gap
    // later, and a call made after that belongs to the one after. So the calls two captures
    // apart are at least a gap apart (a few ms of slack for the clocks).
    for pair in groups.windows(3) {
        let (before, after) = (&pair[0].1, &pair[2].1);
        let apart = after[0] - before[before.len() - 1];
        assert!(
            apart >= 1000 - 5,
            "captures closer than a second apart: calls {apart} ms apart two captures apart: {:?}",
            groups.iter().map(|(_, ats)| ats).collect::<Vec<_>>()
        );
    }
    // Calls as close as these (the daemon's times) must have shared a capture.
    let span = calls_span(&groups);
    if span < 5000 {
        assert!(
            groups.len() < CALLS,
            "{CALLS} calls in {span} ms, each with its own capture"
        );
    }
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

/// Milliseconds from the first call to the last.
fn calls_span(groups: &[(&str, Vec<i64>)]) -> i64 {
    let first = groups.first().map_or(0, |(_, ats)| ats[0]);
    let last = groups.last().map_or(0, |(_, ats)| ats[ats.len() - 1]);
    last - first
}

/// Milliseconds since the epoch of an event's `at` (`2026-11-30T05:32:50.123Z`).
fn at_ms(at: &str) -> i64 {
    let number = |range: std::ops::Range<usize>| -> i64 {
        at.get(range)
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("not a time: {at}"))
    };
    let (y, m, d) = (number(0..4), number(5..7), number(8..10));
    // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + number(11..13) * 3600 + number(14..16) * 60 + number(17..19);
    secs * 1000 + number(20..23)
}

#[test]
fn event_times_read_as_epoch_milliseconds() {
    assert_eq!(at_ms("2025-11-30T05:32:50.123Z"), 1_764_480_770_123);
    assert_eq!(at_ms("1970-01-01T00:00:00.005Z"), 5);
}
