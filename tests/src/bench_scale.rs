//! `porthole-bench scale`: pixel density (DESIGN.md §15) on a page that paints the wall clock
//! into every frame. At scale 1 and at scale 2 (frames of 800×600 and 1600×1200 for an
//! 800×600 pane): frames per second reaching a pane and the daemon's CPU over the same window,
//! and the paint → client latency through the daemon minus that of a raw CDP screencast of the
//! same tab at the same time (the added latency). Prints scale 2 / scale 1 ratios.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use porthole::cdp::CdpConnection;
use serde_json::json;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

use crate::daemon::{DaemonOptions, TestDaemon};
use crate::pages::PageServer;
use crate::probe::Probe;
use crate::stream_stats::{cpu_seconds, median, now_ms24};

const WINDOW: Duration = Duration::from_secs(5);
const CHANNEL: &str = "bench-scale";

/// Frames and latencies of one stream at one scale.
#[derive(Default)]
struct Seen {
    frames: usize,
    latencies: Vec<f64>,
    /// Width × height of the last frame.
    size: (u32, u32),
    /// The daemon's CPU over the window, % of a core (pane streams only).
    cpu: f64,
}

/// Frames stamped on arrival (ms, as the page's clock), decoded after the window.
fn decode(arrivals: Vec<(i64, Vec<u8>)>, scale: u32) -> Seen {
    let mut seen = Seen {
        frames: arrivals.len(),
        ..Seen::default()
    };
    for (arrived, jpeg) in arrivals {
        let Ok(image) = image::load_from_memory_with_format(&jpeg, image::ImageFormat::Jpeg) else {
            continue;
        };
        let image = image.to_luma8();
        seen.size = (image.width(), image.height());
        if let Some(painted) = blocks_at(&image, scale) {
            let diff = (arrived - i64::from(painted)).rem_euclid(16_777_216);
            seen.latencies.push(diff as f64);
        }
    }
    seen
}

/// The number the bench pages paint in 24 blocks of 16 CSS px, read at `scale`.
fn blocks_at(image: &image::GrayImage, scale: u32) -> Option<u32> {
    if image.width() < 24 * 16 * scale || image.height() < 16 * scale {
        return None;
    }
    let mut value = 0u32;
    for i in 0..24 {
        if image.get_pixel((8 + 16 * i) * scale, 8 * scale).0[0] < 128 {
            value |= 1 << i;
        }
    }
    Some(value)
}

/// A pane socket asking 800×600 frames at `scale` for `window` (from its first frame of that
/// size), with the daemon's CPU over the window.
async fn pane_at(daemon: &TestDaemon, scale: u32, window: Duration) -> Seen {
    let pid = daemon.child.as_ref().and_then(|c| c.id()).unwrap();
    let mut request = format!("ws://{}/api/ws/browser", daemon.addr)
        .into_client_request()
        .unwrap();
    request.headers_mut().insert(
        "Authorization",
        format!("Bearer {}", daemon.token).parse().unwrap(),
    );
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    let start = json!({"type": "start", "channel_id": CHANNEL, "width": 800, "height": 600});
    let cast =
        json!({"type": "screencast", "width": 800, "height": 600, "quality": 60, "scale": scale});
    for message in [start, cast] {
        socket
            .send(Message::text(message.to_string()))
            .await
            .unwrap();
    }
    // Until frames of the asked size come, then the window.
    let want = (800 * scale, 600 * scale);
    let settle = Instant::now() + Duration::from_secs(30);
    while let Ok(Some(Ok(message))) = tokio::time::timeout_at(settle.into(), socket.next()).await {
        if let Message::Binary(jpeg) = message {
            if decode(vec![(0, jpeg.to_vec())], scale).size == want {
                break;
            }
        }
    }
    let mut arrivals = Vec::new();
    let (started, cpu_before) = (Instant::now(), cpu_seconds(pid));
    let end = started + window;
    while let Ok(Some(Ok(message))) = tokio::time::timeout_at(end.into(), socket.next()).await {
        let arrived = now_ms24();
        if let Message::Binary(jpeg) = message {
            arrivals.push((arrived, jpeg.to_vec()));
        }
    }
    let cpu = (cpu_seconds(pid) - cpu_before) / started.elapsed().as_secs_f64() * 100.0;
    Seen {
        cpu,
        ..decode(arrivals, scale)
    }
}

/// A raw CDP screencast of `target` (at whatever size the tab is laid out) for `window`.
async fn raw_at(cdp: CdpConnection, target: String, scale: u32, window: Duration) -> Seen {
    let params = json!({"format": "jpeg", "quality": 60, "maxWidth": 8192, "maxHeight": 8192});
    decode(
        crate::raw_cdp::screencast_frames(&cdp, &target, params, window)
            .await
            .0,
        scale,
    )
}

/// One scale: the pane alone (frames per second, daemon CPU), then the pane beside a raw cast
/// (latencies). Returns (frames/s, CPU % of a core, added latency ms).
async fn measure(daemon: &TestDaemon, probe: &Probe, tab: &str, scale: u32) -> (f64, f64, f64) {
    let seen = pane_at(daemon, scale, WINDOW).await;
    let (fps, cpu) = (seen.frames as f64 / WINDOW.as_secs_f64(), seen.cpu);

    let through = pane_at(daemon, scale, WINDOW);
    let raw = tokio::spawn(raw_at(probe.cdp.clone(), tab.to_string(), scale, WINDOW));
    let mut through = through.await;
    let mut raw = raw.await.unwrap();
    let (lat_d, lat_r) = (median(&mut through.latencies), median(&mut raw.latencies));
    println!(
        "  scale {scale}: frames {}×{}, {fps:5.1} frames/s, daemon CPU {cpu:5.1}% of a core; \
         paint→client daemon {lat_d:5.1} ms, raw CDP {lat_r:5.1} ms ({}×{}), added {:4.1} ms (median)",
        seen.size.0,
        seen.size.1,
        raw.size.0,
        raw.size.1,
        lat_d - lat_r
    );
    (fps, cpu, lat_d - lat_r)
}

pub async fn run() {
    let pages = PageServer::start().await;
    // The daemon as a user runs it: at `info` (debug logging costs milliseconds per frame).
    let daemon = TestDaemon::start_with(DaemonOptions {
        rust_log: "info",
        ..Default::default()
    })
    .await;
    let driver = crate::pane::Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = driver.start(CHANNEL).await;
    driver.open_page(&pages.url("/clock"), "Clock").await;
    let probe = Probe::connect(&daemon.profile_dir(CHANNEL)).await;
    println!(
        "pixel density: an 800×600 pane on a page painting the clock every frame, {:.0} s windows",
        WINDOW.as_secs_f64()
    );
    let one = measure(&daemon, &probe, &tab, 1).await;
    let two = measure(&daemon, &probe, &tab, 2).await;
    println!(
        "  scale 2 / scale 1: frames/s {:.2}, daemon CPU {:.2}; added latency {:+.1} ms at scale 2 vs {:+.1} ms at scale 1",
        two.0 / one.0.max(0.1),
        two.1 / one.1.max(0.1),
        two.2,
        one.2
    );
    drop(driver);
    daemon.stop().await;
}
