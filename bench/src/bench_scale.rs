//! `porthole-bench scale`: pixel density (DESIGN.md §15, issue 35) on a page that moves for
//! half of every 1024 ms, painting the wall clock into every frame, then stands still
//! (`bench/clock-pauses.html`). An 800×600 pane at scale 1 and at scale 2 (frames of 800×600
//! and 1600×1200), each taking turns with a raw CDP screencast of the same tab at the same
//! scale (Chrome's own cast at full size: what the daemon did before issue 35):
//! - motion: paint → client latency of the frames while the page moves (median);
//! - time to sharp: from the page's last paint before it stands still to the first frame of
//!   that paint at full size (median and worst; a still period with no sharp frame is a miss);
//! - frames per second, and the daemon's CPU.
//!
//! Last a design the daemon does not use, on raw CDP (`bench_scale_flip`: the view at scale 1
//! while moving, flipped to 2 for each sharp frame), with the frames it holds back while
//! flipping and the still periods it leaves blurry. Then where scale 2's time goes: raw casts
//! of the tab at scale 2 at full size with JPEG quality 30, 60 and 90, and capped at the CSS
//! size (`maxWidth`/`maxHeight` 800×600).
//! Prints each figure's ratio to its same-run baseline.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use porthole::bench_hooks::cdp::CdpConnection;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::devtools_port::Probe;
use porthole_tests::pages::PageServer;
use serde_json::json;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

use crate::stream_stats::{cpu_seconds, median, median_of, now_ms24};

const WINDOW: Duration = Duration::from_secs(8);
const CHANNEL: &str = "bench-scale";
/// The pane's CSS size.
const PANE: (u32, u32) = (800, 600);
/// The page's period and the part of it it moves (ms; see the page).
const PERIOD: u32 = 1024;
const MOVING: u32 = 512;
/// The longest a still page may stay blurry (issue 35).
const SHARP_WITHIN_MS: f64 = 200.0;

/// One frame: when it arrived (ms, the page's clock), the clock value it shows, its width.
struct Arrival {
    at: i64,
    painted: u32,
    width: u32,
}

/// What one stream showed over a window.
#[derive(Default)]
struct Figures {
    frames: usize,
    /// Median paint → client of the frames painted while moving (ms).
    motion: f64,
    /// Paint → first full-size frame of each still period seen (ms).
    sharp: Vec<f64>,
    /// Still periods whose last paint never came at full size.
    missed: usize,
    /// Median JPEG bytes.
    bytes: f64,
    /// Frames whose painted clock is nonsense (more than a period before their arrival): a
    /// frame of neither layout, cast between the two calls of a view change.
    implausible: usize,
    /// Width × height of the largest frame.
    size: (u32, u32),
    /// The daemon's CPU over the window, % of a core (pane streams only).
    cpu: Option<f64>,
}

impl Figures {
    fn fps(&self) -> f64 {
        self.frames as f64 / WINDOW.as_secs_f64()
    }

    fn sharp_median(&self) -> f64 {
        median_of(&self.sharp)
    }

    fn sharp_worst(&self) -> f64 {
        self.sharp.iter().copied().fold(f64::NAN, f64::max)
    }

    /// Still periods that stayed blurry longer than [`SHARP_WITHIN_MS`] (misses included).
    fn late(&self) -> usize {
        self.sharp.iter().filter(|&&t| t > SHARP_WITHIN_MS).count() + self.missed
    }

    fn line(&self, name: &str) -> String {
        let implausible = match self.implausible {
            0 => String::new(),
            n => format!(", {n} frames of neither layout"),
        };
        let cpu = self
            .cpu
            .map_or(String::new(), |c| format!(", daemon CPU {c:5.1}%"));
        format!(
            "  {name:<34} {:>4}×{:<4} {:5.1} frames/s, {:4.0} kB; motion {:6.1} ms; sharp {:6.1} ms \
             median, {:6.1} worst, {}/{} late{implausible}{cpu}",
            self.size.0,
            self.size.1,
            self.fps(),
            self.bytes / 1024.0,
            self.motion,
            self.sharp_median(),
            self.sharp_worst(),
            self.late(),
            self.sharp.len() + self.missed,
        )
    }
}

/// Frames stamped on arrival, decoded after the window; `full` is the full-size frame width.
fn figures(frames: Vec<(i64, Vec<u8>)>, full: u32) -> Figures {
    let mut out = Figures {
        frames: frames.len(),
        bytes: median(
            &mut frames
                .iter()
                .map(|(_, j)| j.len() as f64)
                .collect::<Vec<_>>(),
        ),
        ..Figures::default()
    };
    let mut arrivals = Vec::new();
    for (at, jpeg) in frames {
        let Ok(image) = image::load_from_memory_with_format(&jpeg, image::ImageFormat::Jpeg) else {
            continue;
        };
        let image = image.to_luma8();
        if image.width() > out.size.0 {
            out.size = (image.width(), image.height());
        }
        let scale = f64::from(image.width()) / f64::from(PANE.0);
        if let Some(painted) = blocks_at(&image, scale) {
            let width = image.width();
            arrivals.push(Arrival { at, painted, width });
        }
    }
    let since = |a: &Arrival| (a.at - i64::from(a.painted)).rem_euclid(1 << 24) as f64;
    let plausible = arrivals.len();
    arrivals.retain(|a| since(a) < f64::from(PERIOD));
    out.implausible = plausible - arrivals.len();
    let mut motion: Vec<f64> = arrivals
        .iter()
        .filter(|a| a.painted % PERIOD < MOVING)
        .map(since)
        .collect();
    out.motion = median(&mut motion);
    // Each still period's last paint, in the order seen.
    let mut stills: Vec<u32> = arrivals
        .iter()
        .map(|a| a.painted)
        .filter(|p| p % PERIOD >= MOVING)
        .collect();
    stills.sort_unstable();
    stills.dedup();
    for last in stills {
        let sharp = arrivals
            .iter()
            .filter(|a| a.painted == last && a.width >= full)
            .map(since)
            .fold(f64::NAN, f64::min);
        if sharp.is_nan() {
            out.missed += 1;
        } else {
            out.sharp.push(sharp);
        }
    }
    out
}

/// The number the bench pages paint in 24 blocks of 16 CSS px, read at `scale` px per CSS px
/// (below 1 for a frame capped under the CSS size).
fn blocks_at(image: &image::GrayImage, scale: f64) -> Option<u32> {
    let px = |css: u32| (f64::from(css) * scale) as u32;
    if image.width() < px(24 * 16) || image.height() < px(16) || px(16) < 4 {
        return None;
    }
    let mut value = 0u32;
    for i in 0..24 {
        if image.get_pixel(px(8 + 16 * i), px(8)).0[0] < 128 {
            value |= 1 << i;
        }
    }
    Some(value)
}

/// A pane socket asking 800×600 CSS px at `scale` for [`WINDOW`] (from its first full-size
/// frame on), with the daemon's CPU over the window; the pane leaves at the end.
async fn pane_at(daemon: &TestDaemon, scale: u32) -> Figures {
    let pid = daemon.child.as_ref().and_then(|c| c.id()).unwrap();
    let mut request = format!("ws://{}/api/ws/browser", daemon.addr)
        .into_client_request()
        .unwrap();
    request.headers_mut().insert(
        "Authorization",
        format!("Bearer {}", daemon.token).parse().unwrap(),
    );
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    let (width, height) = PANE;
    let start = json!({"type": "start", "channel_id": CHANNEL, "width": width, "height": height});
    let cast = json!({"type": "screencast", "width": width, "height": height, "quality": 60,
                      "scale": scale});
    for message in [start, cast] {
        socket
            .send(Message::text(message.to_string()))
            .await
            .unwrap();
    }
    // Until a frame of the full size comes, then the window.
    let settle = Instant::now() + Duration::from_secs(30);
    while let Ok(Some(Ok(message))) = tokio::time::timeout_at(settle.into(), socket.next()).await {
        if let Message::Binary(jpeg) = message {
            if jpeg_width(&jpeg) == Some(width * scale) {
                break;
            }
        }
    }
    let mut frames = Vec::new();
    let (started, cpu_before) = (Instant::now(), cpu_seconds(pid));
    let end = started + WINDOW;
    while let Ok(Some(Ok(message))) = tokio::time::timeout_at(end.into(), socket.next()).await {
        let arrived = now_ms24();
        if let Message::Binary(jpeg) = message {
            frames.push((arrived, jpeg.to_vec()));
        }
    }
    let cpu = (cpu_seconds(pid) - cpu_before) / started.elapsed().as_secs_f64() * 100.0;
    let _ = socket.close(None).await;
    Figures {
        cpu: Some(cpu),
        ..figures(frames, width * scale)
    }
}

fn jpeg_width(jpeg: &[u8]) -> Option<u32> {
    image::ImageReader::with_format(std::io::Cursor::new(jpeg), image::ImageFormat::Jpeg)
        .into_dimensions()
        .ok()
        .map(|(w, _)| w)
}

/// A raw CDP screencast of `target` (as the tab is laid out: at `scale` after a pane asked
/// for it) for [`WINDOW`], with JPEG `quality`, capped at `cap` when given.
async fn raw_at(
    cdp: &CdpConnection,
    target: &str,
    scale: u32,
    quality: u8,
    cap: Option<(u32, u32)>,
) -> Figures {
    let (w, h) = cap.unwrap_or((8192, 8192));
    let params = json!({"format": "jpeg", "quality": quality, "maxWidth": w, "maxHeight": h});
    let (frames, _) = crate::raw_screencast::screencast_frames(cdp, target, params, WINDOW).await;
    figures(frames, PANE.0 * scale)
}

/// The daemon's sharp captures (its `screencast_sharp` lines since the window began): how
/// long each took from its start to its frame, and how many were published.
fn print_sharp_captures(log: &str) {
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("screencast_sharp"))
        .collect();
    let mut took: Vec<f64> = lines.iter().filter_map(|l| field(l, "ms")).collect();
    let published = lines
        .iter()
        .filter(|l| l.contains("published=true"))
        .count();
    let settle = lines.first().and_then(|l| field(l, "settle_ms"));
    println!(
        "    sharp captures: {} ({published} published), {:.0} ms median from the start of the \
         full-size cast to its frame, after {:.0} ms without frames",
        lines.len(),
        median(&mut took),
        settle.unwrap_or(f64::NAN),
    );
}

/// The number after `name=` in a log line.
fn field(line: &str, name: &str) -> Option<f64> {
    let at = line.find(&format!(" {name}="))? + name.len() + 2;
    line[at..].split_whitespace().next()?.parse().ok()
}

/// `a / b` as a ratio, `-` when either is missing.
fn ratio(a: f64, b: f64) -> String {
    if a.is_finite() && b.is_finite() && b > 0.0 {
        format!("{:.2}×", a / b)
    } else {
        "-".to_string()
    }
}

pub async fn run() {
    let pages = PageServer::start().await;
    // The daemon as a user runs it: at `info` (debug logging costs milliseconds per frame),
    // but for the sharp frames' own line (a few a second).
    let daemon = TestDaemon::start_with(DaemonOptions {
        rust_log: "info,porthole::browser::view::sharp=debug",
        ..Default::default()
    })
    .await;
    let driver = porthole_tests::pane::Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = driver.start(CHANNEL).await;
    driver
        .open_page(&pages.url("/bench/clock-pauses"), "Clock pauses")
        .await;
    let probe = Probe::connect(&daemon.profile_dir(CHANNEL)).await;
    println!(
        "pixel density: an 800×600 pane on a page that moves {MOVING} ms of every {PERIOD} ms, \
         {:.0} s windows taking turns (load {})",
        WINDOW.as_secs_f64(),
        crate::stream_stats::load_average()
    );
    let cdp = &probe.cdp;
    let pane1 = pane_at(&daemon, 1).await;
    println!("{}", pane1.line("scale 1, daemon"));
    let raw1 = raw_at(cdp, &tab, 1, 60, None).await;
    println!("{}", raw1.line("scale 1, raw CDP"));
    let log_from = daemon.log().len();
    let pane2 = pane_at(&daemon, 2).await;
    println!("{}", pane2.line("scale 2, daemon"));
    print_sharp_captures(daemon.log().get(log_from..).unwrap_or_default());
    // The tab stays laid out at scale 2 after the pane left.
    let raw2 = raw_at(cdp, &tab, 2, 60, None).await;
    println!("{}", raw2.line("scale 2, raw CDP"));
    println!("  where scale 2's time goes (raw CDP at scale 2):");
    for (name, quality, cap) in [
        ("full size, quality 30", 30, None),
        ("full size, quality 90", 90, None),
        ("capped at CSS size, quality 60", 60, Some(PANE)),
        (
            "capped at half the CSS size",
            60,
            Some((PANE.0 / 2, PANE.1 / 2)),
        ),
    ] {
        let seen = raw_at(cdp, &tab, 2, quality, cap).await;
        println!("{}", seen.line(name));
    }
    // Last: its overrides replace the daemon's layout of the tab (they are the tab's, not the
    // session's).
    let (flipped, flips) = crate::bench_scale_flip::frames(cdp, &tab, PANE, WINDOW).await;
    let flipped = figures(flipped, PANE.0 * 2);
    println!("{}", flipped.line("scale 2, raw CDP, view flipped"));
    println!(
        "    view flipped to scale 2 {} times and back {}; the frame of the flip back was the \
         last scale-1 frame again {} times (dropped), differed {} times; {} frames narrower \
         than full size while flipped up (held)",
        flips.ups, flips.downs, flips.dropped, flips.differed, flips.held
    );
    println!(
        "  motion: daemon scale 2 / scale 1 {} (goal ≤ 1.5×); daemon / raw CDP at scale 1 {}, at \
         scale 2 {}; raw CDP scale 2 / scale 1 {}",
        ratio(pane2.motion, pane1.motion),
        ratio(pane1.motion, raw1.motion),
        ratio(pane2.motion, raw2.motion),
        ratio(raw2.motion, raw1.motion),
    );
    println!(
        "  a design not used (see bench_scale_flip): view flipped / raw CDP at scale 1: motion \
         {}, time to sharp {}",
        ratio(flipped.motion, raw1.motion),
        ratio(flipped.sharp_median(), raw1.sharp_median()),
    );
    println!(
        "  time to sharp at scale 2: daemon {:.0} ms median, {:.0} ms worst, {} of {} over \
         {SHARP_WITHIN_MS:.0} ms (goal: none); daemon / raw CDP at scale 2 {}, at scale 1 {}",
        pane2.sharp_median(),
        pane2.sharp_worst(),
        pane2.late(),
        pane2.sharp.len() + pane2.missed,
        ratio(pane2.sharp_median(), raw2.sharp_median()),
        ratio(pane1.sharp_median(), raw1.sharp_median()),
    );
    println!(
        "  scale 2 / scale 1: daemon frames/s {}, daemon CPU {}",
        ratio(pane2.fps(), pane1.fps()),
        ratio(pane2.cpu.unwrap_or(f64::NAN), pane1.cpu.unwrap_or(f64::NAN)),
    );
    drop(driver);
    daemon.stop().await;
}
