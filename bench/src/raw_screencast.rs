//! A raw CDP screencast, the way the benches' baseline clients drive Chromium without the
//! daemon: find a browser's first page, start a screencast on a flat session (attached with
//! the harness's [`porthole_tests::raw_cdp`]), and wait for its first frame or gather its
//! frames for a window (each acknowledged, stamped on arrival, decoded after the window so
//! decoding does not delay the next arrival).

use std::time::{Duration, Instant};

use base64::Engine as _;
use porthole::bench_hooks::cdp::{CdpConnection, CdpEvent};
use porthole::bench_hooks::frame_stages;
use porthole_tests::raw_cdp::attach;
use serde_json::{json, Value};
use tokio::sync::broadcast;

use crate::stream_stats::now_ms24;

/// The first page target of the browser behind `cdp` (waits up to 20 s for one).
pub async fn first_page(cdp: &CdpConnection) -> String {
    porthole_tests::eventually("a page", Duration::from_secs(20), || async {
        let targets = cdp.call("Target.getTargets", json!({})).await.ok()?;
        targets["targetInfos"]
            .as_array()?
            .iter()
            .find(|t| t["type"] == "page")
            .and_then(|t| t["targetId"].as_str())
            .map(str::to_string)
    })
    .await
}

/// Acknowledges `event` when it is a screencast frame of `session` (so Chrome sends the
/// next); false for any other event.
pub fn ack_frame(cdp: &CdpConnection, event: &CdpEvent, session: &str) -> bool {
    if event.method != "Page.screencastFrame" || event.session_id.as_deref() != Some(session) {
        return false;
    }
    cdp.fire(
        "Page.screencastFrameAck",
        json!({"sessionId": event.params["sessionId"]}),
        Some(session),
    );
    true
}

/// Starts a screencast on `session` with `params` (`format`, `quality`, sizes); returns the
/// events from before it started.
pub async fn start_screencast(
    cdp: &CdpConnection,
    session: &str,
    params: Value,
) -> broadcast::Receiver<CdpEvent> {
    let events = cdp.subscribe();
    cdp.call_on(session, "Page.startScreencast", params)
        .await
        .expect("start the screencast");
    events
}

/// Waits for the screencast's first frame; panics after `within`.
pub async fn first_frame(events: &mut broadcast::Receiver<CdpEvent>, within: Duration) {
    tokio::time::timeout(within, async {
        while let Ok(event) = events.recv().await {
            if event.method == "Page.screencastFrame" {
                return;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("a screencast frame within {within:?}"));
}

/// A screencast of `target` with `params` for `window`: each frame acknowledged and stamped
/// on arrival (`now_ms24`), its JPEG decoded from base64 after the window; then stopped. With
/// the frames, each one's time from Chrome's swap (`metadata.timestamp`) to its arrival, in ms.
pub async fn screencast_frames(
    cdp: &CdpConnection,
    target: &str,
    params: Value,
    window: Duration,
) -> (Vec<(i64, Vec<u8>)>, Vec<f64>) {
    let session = attach(cdp, target).await;
    let mut events = start_screencast(cdp, &session, params).await;
    let mut encoded: Vec<(i64, String)> = Vec::new();
    let mut from_swap = Vec::new();
    let end = Instant::now() + window;
    while let Ok(Ok(event)) = tokio::time::timeout_at(end.into(), events.recv()).await {
        let arrived = now_ms24();
        if Instant::now() >= end {
            break;
        }
        if !ack_frame(cdp, &event, &session) {
            continue;
        }
        let swapped = event.params["metadata"]["timestamp"].as_f64();
        if let Some(since) = frame_stages::since_swap(swapped, event.received) {
            from_swap.push(since.as_secs_f64() * 1000.0);
        }
        let data = event.params["data"].as_str().unwrap_or_default();
        encoded.push((arrived, data.to_string()));
    }
    let _ = cdp
        .call_on(&session, "Page.stopScreencast", json!({}))
        .await;
    (decoded(encoded), from_swap)
}

/// Frames kept as Chrome sent them (base64, stamped on arrival), decoded to their JPEG bytes
/// after a window, so decoding never delays the next arrival.
pub fn decoded(encoded: Vec<(i64, String)>) -> Vec<(i64, Vec<u8>)> {
    encoded
        .into_iter()
        .map(|(arrived, data)| {
            let jpeg = base64::engine::general_purpose::STANDARD
                .decode(data)
                .unwrap_or_default();
            (arrived, jpeg)
        })
        .collect()
}
