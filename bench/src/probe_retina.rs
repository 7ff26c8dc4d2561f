//! `porthole-bench retina-probe` (issue 35, not part of the full run): how a headless Chromium
//! switches a tab between rendering at 1× and at 2× while a screencast runs, in raw CDP without
//! the daemon. The tab always has `deviceScaleFactor` 2 (the page sees `devicePixelRatio` 2 and
//! 800×600 CSS px); "fluid" is view scale 1 with an 800×600 visible size (800×600 frames),
//! "sharp" is view scale 2 with 1600×1200 (1600×1200 frames).
//!
//! Each variant is a way of calling Chrome to go fluid → sharp on a still page and sharp →
//! fluid on a moving one, tried [`TRIALS`] times (or as the third argument says:
//! `porthole-bench retina-probe c,i 12` runs variants c and i 12 times each) on
//! `bench/corners.html` (a colour in each
//! corner, so a frame of a zoomed part of the page shows): every frame within [`WATCH`] of the
//! first call, with its decoded size, its metadata and whether it shows the whole page, then
//! what the page sees. The screencast (no size cap) runs through every switch unless a variant
//! stops or restarts it. Frames that do not show the whole page are kept as quarter-size PPMs
//! in [`ODD_DIR`].
//!
//! Found on Chromium 156 headless (2 shared cores, load 3–4; 6–12 trials a variant, each
//! variant run 2–4 times; see the commit that added this probe): only `i`/`j` (cast stopped,
//! visible size then metrics, two animation frames, cast started) made a still page sharp
//! with no glitch frame (84 of 84: one whole 1600×1200 frame, 62–218 ms, median ~105 ms after
//! the first call); every ordering with the cast running, and Chrome's own
//! `Page.captureScreenshot`, sometimes sent a 1600×1200 frame of the page at 1× in its
//! top-left quarter or of its top-left quarter at 4×, with the same metadata as a good frame.

use std::time::{Duration, Instant};

use base64::Engine as _;
use porthole::bench_hooks::cdp::CdpConnection;
use porthole_tests::chromium::BareChromium;
use porthole_tests::pages::PageServer;
use porthole_tests::raw_cdp;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::raw_screencast;

/// The page's CSS size and the device scale factor.
const CSS: (u32, u32) = (800, 600);
const DSF: u32 = 2;
/// How many times each variant is tried (unless the third argument says).
const TRIALS: usize = 6;
/// How long frames are gathered after a switch.
const WATCH: Duration = Duration::from_millis(500);
/// A still page: no frame for this long.
const QUIET: Duration = Duration::from_millis(300);

/// One CDP call of a switch.
#[derive(Clone, Copy)]
enum Call {
    /// `Emulation.setDeviceMetricsOverride` at view `scale` with extra fields.
    Metrics { scale: u32, extra: fn() -> Value },
    /// `Emulation.setVisibleSize` to the CSS size × `scale`.
    Visible { scale: u32 },
    /// `Page.stopScreencast` then `Page.startScreencast`.
    Restart,
    /// `Page.stopScreencast` alone.
    Stop,
    /// `Page.startScreencast` alone.
    Start,
    /// Waits in the page for two animation frames (a frame drawn after the calls before).
    TwoFrames,
    /// `Page.captureScreenshot` (JPEG) with extra fields; its image is judged as a frame that
    /// came when the call was answered.
    Screenshot { extra: fn() -> Value },
}

fn none() -> Value {
    json!({})
}
fn keep_visible() -> Value {
    json!({"dontSetVisibleSize": true})
}
fn viewport_1() -> Value {
    json!({"viewport": {"x": 0, "y": 0, "width": CSS.0, "height": CSS.1, "scale": 1}})
}
fn clip_1() -> Value {
    json!({"clip": {"x": 0, "y": 0, "width": CSS.0, "height": CSS.1, "scale": 1}})
}
fn screen_2x() -> Value {
    json!({"screenWidth": CSS.0 * DSF, "screenHeight": CSS.1 * DSF})
}

/// A way to switch: its calls to sharp and back to fluid; `pipelined` sends a switch's calls
/// back to back without waiting for each answer.
struct Variant {
    name: &'static str,
    sharp: &'static [Call],
    fluid: &'static [Call],
    pipelined: bool,
}

const VARIANTS: &[Variant] = &[
    Variant {
        name: "a: metrics alone (visible size set by Chrome)",
        sharp: &[Call::Metrics {
            scale: 2,
            extra: none,
        }],
        fluid: &[Call::Metrics {
            scale: 1,
            extra: none,
        }],
        pipelined: false,
    },
    Variant {
        name: "b1: metrics + viewport {800×600, scale 1}",
        sharp: &[Call::Metrics {
            scale: 2,
            extra: viewport_1,
        }],
        fluid: &[Call::Metrics {
            scale: 1,
            extra: none,
        }],
        pipelined: false,
    },
    Variant {
        name: "b2: metrics + screen 1600×1200",
        sharp: &[Call::Metrics {
            scale: 2,
            extra: screen_2x,
        }],
        fluid: &[Call::Metrics {
            scale: 1,
            extra: screen_2x,
        }],
        pipelined: false,
    },
    Variant {
        name: "c: visible size, then metrics (kept)",
        sharp: &[
            Call::Visible { scale: 2 },
            Call::Metrics {
                scale: 2,
                extra: keep_visible,
            },
        ],
        fluid: &[
            Call::Visible { scale: 1 },
            Call::Metrics {
                scale: 1,
                extra: keep_visible,
            },
        ],
        pipelined: false,
    },
    Variant {
        name: "d: metrics (kept), then visible size (today)",
        sharp: &[
            Call::Metrics {
                scale: 2,
                extra: keep_visible,
            },
            Call::Visible { scale: 2 },
        ],
        fluid: &[
            Call::Metrics {
                scale: 1,
                extra: keep_visible,
            },
            Call::Visible { scale: 1 },
        ],
        pipelined: false,
    },
    Variant {
        name: "e: as d, pipelined",
        sharp: &[
            Call::Metrics {
                scale: 2,
                extra: keep_visible,
            },
            Call::Visible { scale: 2 },
        ],
        fluid: &[
            Call::Metrics {
                scale: 1,
                extra: keep_visible,
            },
            Call::Visible { scale: 1 },
        ],
        pipelined: true,
    },
    Variant {
        name: "f: as c, pipelined",
        sharp: &[
            Call::Visible { scale: 2 },
            Call::Metrics {
                scale: 2,
                extra: keep_visible,
            },
        ],
        fluid: &[
            Call::Visible { scale: 1 },
            Call::Metrics {
                scale: 1,
                extra: keep_visible,
            },
        ],
        pipelined: true,
    },
    Variant {
        name: "g: as d, then a cast restart",
        sharp: &[
            Call::Metrics {
                scale: 2,
                extra: keep_visible,
            },
            Call::Visible { scale: 2 },
            Call::Restart,
        ],
        fluid: &[
            Call::Metrics {
                scale: 1,
                extra: keep_visible,
            },
            Call::Visible { scale: 1 },
            Call::Restart,
        ],
        pipelined: false,
    },
    Variant {
        name: "i: cast stopped; as c; two animation frames; cast started",
        sharp: &[
            Call::Stop,
            Call::Visible { scale: 2 },
            Call::Metrics {
                scale: 2,
                extra: keep_visible,
            },
            Call::TwoFrames,
            Call::Start,
        ],
        fluid: &[
            Call::Visible { scale: 1 },
            Call::Metrics {
                scale: 1,
                extra: keep_visible,
            },
        ],
        pipelined: false,
    },
    Variant {
        name: "j: as i, and back with the cast stopped",
        sharp: &[
            Call::Stop,
            Call::Visible { scale: 2 },
            Call::Metrics {
                scale: 2,
                extra: keep_visible,
            },
            Call::TwoFrames,
            Call::Start,
        ],
        fluid: &[
            Call::Stop,
            Call::Visible { scale: 1 },
            Call::Metrics {
                scale: 1,
                extra: keep_visible,
            },
            Call::Start,
        ],
        pipelined: false,
    },
    Variant {
        name: "k: as j, without waiting for two animation frames",
        sharp: &[
            Call::Stop,
            Call::Visible { scale: 2 },
            Call::Metrics {
                scale: 2,
                extra: keep_visible,
            },
            Call::Start,
        ],
        fluid: &[
            Call::Stop,
            Call::Visible { scale: 1 },
            Call::Metrics {
                scale: 1,
                extra: keep_visible,
            },
            Call::Start,
        ],
        pipelined: false,
    },
    Variant {
        name: "h1: no switch, Page.captureScreenshot",
        sharp: &[Call::Screenshot { extra: none }],
        fluid: &[],
        pipelined: false,
    },
    Variant {
        name: "h2: no switch, Page.captureScreenshot with a clip at scale 1",
        sharp: &[Call::Screenshot { extra: clip_1 }],
        fluid: &[],
        pipelined: false,
    },
];

/// A screencast frame as it arrived (acknowledged at once by the reader task).
struct Frame {
    received: Instant,
    meta: Value,
    data: String,
}

/// What a frame shows, judged at the corners and between them.
#[derive(Debug, Clone, PartialEq)]
enum Look {
    /// All four corners and white between them.
    Whole,
    /// Red where the whole page is white: a zoomed top-left part (the glitch).
    ZoomedTopLeft,
    /// Anything else: the colours seen at the five points.
    Other(String),
}

/// A frame of a switch, judged.
struct Judged {
    ms: f64,
    width: u32,
    height: u32,
    device: (f64, f64),
    page_scale: f64,
    offset_top: f64,
    look: Look,
}

impl Judged {
    fn text(&self) -> String {
        format!(
            "{:.0}ms {}×{} (meta {}×{} psf {} top {}) {:?}",
            self.ms,
            self.width,
            self.height,
            self.device.0,
            self.device.1,
            self.page_scale,
            self.offset_top,
            self.look
        )
    }

    fn whole_at(&self, width: u32) -> bool {
        self.look == Look::Whole && self.width == width
    }
}

fn colour(p: image::Rgb<u8>) -> char {
    let [r, g, b] = p.0;
    let hi = |v: u8| v > 160;
    let lo = |v: u8| v < 90;
    match (r, g, b) {
        _ if hi(r) && hi(g) && hi(b) => 'w',
        _ if hi(r) && lo(g) && lo(b) => 'r',
        _ if lo(r) && hi(g) && lo(b) => 'g',
        _ if lo(r) && lo(g) && hi(b) => 'b',
        _ if hi(r) && hi(g) && lo(b) => 'y',
        _ if lo(r) && lo(g) && lo(b) => 'k',
        _ => '?',
    }
}

fn judge(frame: &Frame, since: Instant) -> Judged {
    let jpeg = base64::engine::general_purpose::STANDARD
        .decode(&frame.data)
        .unwrap_or_default();
    let image = image::load_from_memory_with_format(&jpeg, image::ImageFormat::Jpeg)
        .map(|i| i.to_rgb8())
        .unwrap_or_default();
    let (w, h) = image.dimensions();
    let at = |x: u32, y: u32| {
        let px = (f64::from(x) / f64::from(CSS.0) * f64::from(w)) as u32;
        let py = (f64::from(y) / f64::from(CSS.1) * f64::from(h)) as u32;
        if px < w && py < h {
            colour(*image.get_pixel(px, py))
        } else {
            '-'
        }
    };
    // The four corners' centres, then a point between them (CSS px of a whole-page frame).
    let seen: String = [(50, 50), (750, 50), (50, 550), (750, 550), (160, 120)]
        .into_iter()
        .map(|(x, y)| at(x, y))
        .collect();
    let look = match seen.as_str() {
        "rgbyw" => Look::Whole,
        s if s.starts_with('r') && s.ends_with('r') => Look::ZoomedTopLeft,
        s => Look::Other(s.to_string()),
    };
    let meta = &frame.meta;
    let num = |k: &str| meta[k].as_f64().unwrap_or(f64::NAN);
    Judged {
        ms: frame.received.duration_since(since).as_secs_f64() * 1000.0,
        width: w,
        height: h,
        device: (num("deviceWidth"), num("deviceHeight")),
        page_scale: num("pageScaleFactor"),
        offset_top: num("offsetTop"),
        look,
    }
}

/// One tab with a running screencast whose frames a task acknowledges and forwards.
struct Tab {
    cdp: CdpConnection,
    session: String,
    frames: mpsc::UnboundedReceiver<Frame>,
}

const CAST: fn() -> Value =
    || json!({"format": "jpeg", "quality": 60, "maxWidth": 8192, "maxHeight": 8192});

impl Tab {
    async fn open(cdp: CdpConnection, url: &str) -> Self {
        let target = raw_screencast::first_page(&cdp).await;
        let session = raw_cdp::attach(&cdp, &target).await;
        let mut events = cdp.subscribe();
        let (tx, frames) = mpsc::unbounded_channel();
        let (reader_cdp, reader_session) = (cdp.clone(), session.clone());
        tokio::spawn(async move {
            while let Ok(event) = events.recv().await {
                if !raw_screencast::ack_frame(&reader_cdp, &event, &reader_session) {
                    continue;
                }
                let frame = Frame {
                    received: event.received,
                    meta: event.params["metadata"].clone(),
                    data: event.params["data"].as_str().unwrap_or_default().into(),
                };
                if tx.send(frame).is_err() {
                    return;
                }
            }
        });
        let tab = Self {
            cdp,
            session,
            frames,
        };
        tab.call("Page.navigate", json!({"url": url})).await;
        porthole_tests::eventually("the page to load", Duration::from_secs(20), || async {
            (tab.eval("document.readyState").await == "complete").then_some(())
        })
        .await;
        tab.call("Page.startScreencast", CAST()).await;
        tab
    }

    async fn call(&self, method: &str, params: Value) -> Value {
        raw_cdp::call(&self.cdp, &self.session, method, params).await
    }

    async fn eval(&self, expression: &str) -> Value {
        let params = json!({"expression": expression, "returnByValue": true});
        raw_cdp::evaluate(&self.cdp, &self.session, params).await
    }

    /// Sends `calls` in order: each answered before the next, or all at once (`pipelined`,
    /// then waiting for every answer). Returns when each answer came (ms after `since`).
    async fn switch(&self, calls: &[Call], pipelined: bool, since: Instant) -> Vec<f64> {
        self.switch_with(calls, pipelined, since).await.0
    }

    /// As [`Tab::switch`], with the screenshots taken, as frames.
    async fn switch_with(
        &self,
        calls: &[Call],
        pipelined: bool,
        since: Instant,
    ) -> (Vec<f64>, Vec<Frame>) {
        let mut pending = Vec::new();
        for call in calls {
            let (method, params) = match *call {
                Call::Metrics { scale, extra } => {
                    let mut params = json!({"width": CSS.0, "height": CSS.1,
                        "deviceScaleFactor": DSF, "mobile": false, "scale": scale});
                    if let (Some(p), Value::Object(more)) = (params.as_object_mut(), extra()) {
                        p.extend(more);
                    }
                    ("Emulation.setDeviceMetricsOverride", params)
                }
                Call::Visible { scale } => (
                    "Emulation.setVisibleSize",
                    json!({"width": CSS.0 * scale, "height": CSS.1 * scale}),
                ),
                Call::Restart => {
                    self.call("Page.stopScreencast", json!({})).await;
                    ("Page.startScreencast", CAST())
                }
                Call::Stop => ("Page.stopScreencast", json!({})),
                Call::Start => ("Page.startScreencast", CAST()),
                Call::TwoFrames => (
                    "Runtime.evaluate",
                    json!({"expression": "new Promise(r => requestAnimationFrame(() => \
                        requestAnimationFrame(() => r(1))))", "awaitPromise": true}),
                ),
                Call::Screenshot { extra } => {
                    let mut params = json!({"format": "jpeg", "quality": 60});
                    if let (Some(p), Value::Object(more)) = (params.as_object_mut(), extra()) {
                        p.extend(more);
                    }
                    ("Page.captureScreenshot", params)
                }
            };
            let (cdp, session) = (self.cdp.clone(), self.session.clone());
            let answer = tokio::spawn(async move {
                let out = cdp.call_on(&session, method, params).await;
                (method, out, Instant::now())
            });
            if pipelined {
                pending.push(answer);
            } else {
                let done = answer.await.expect("call task");
                pending.push(tokio::spawn(async move { done }));
            }
        }
        let (mut answered, mut shots) = (Vec::new(), Vec::new());
        for answer in pending {
            let (method, out, at) = answer.await.expect("call task");
            match out {
                Err(e) => println!("      {method} failed: {e}"),
                Ok(out) if method == "Page.captureScreenshot" => shots.push(Frame {
                    received: at,
                    meta: json!({}),
                    data: out["data"].as_str().unwrap_or_default().into(),
                }),
                Ok(_) => {}
            }
            answered.push(at.duration_since(since).as_secs_f64() * 1000.0);
        }
        (answered, shots)
    }

    /// Frames until `end`.
    async fn frames_until(&mut self, end: Instant) -> Vec<Frame> {
        let mut out = Vec::new();
        while let Ok(Some(frame)) = tokio::time::timeout_at(end.into(), self.frames.recv()).await {
            out.push(frame);
        }
        out
    }

    /// Waits until no frame came for [`QUIET`] (at most 5 s); returns the last frame seen.
    async fn quiet(&mut self) -> Option<Frame> {
        let give_up = Instant::now() + Duration::from_secs(5);
        let mut last = None;
        while Instant::now() < give_up {
            match tokio::time::timeout(QUIET, self.frames.recv()).await {
                Ok(Some(frame)) => last = Some(frame),
                _ => break,
            }
        }
        last
    }

    /// The first frame from now on (at most 2 s).
    async fn next_frame(&mut self) -> Option<Frame> {
        tokio::time::timeout(Duration::from_secs(2), self.frames.recv())
            .await
            .ok()
            .flatten()
    }
}

/// What one variant's trials showed, for the summary.
#[derive(Default)]
struct Tally {
    /// Ms to the first whole full-size frame, per trial that had one.
    sharp: Vec<f64>,
    sharp_missing: usize,
    sharp_glitches: usize,
    sharp_frames: usize,
    /// Ms to the first whole 800-wide frame after going back, per trial that had one.
    fluid: Vec<f64>,
    fluid_missing: usize,
    fluid_glitches: usize,
    page: Vec<String>,
    /// Screenshots: ms, width, look.
    shots: Vec<(f64, u32, Look)>,
}

/// Where frames that do not show the whole page are kept, to look at.
const ODD_DIR: &str = "/tmp/porthole-retina-probe";

/// Writes the frames that do not show the whole page to [`ODD_DIR`].
fn keep_odd(variant: &str, frames: &[Frame], judged: &[Judged]) {
    let _ = std::fs::create_dir_all(ODD_DIR);
    let tag: String = variant.chars().take_while(|c| *c != ':').collect();
    for (frame, j) in frames.iter().zip(judged) {
        if j.look == Look::Whole {
            continue;
        }
        let jpeg = base64::engine::general_purpose::STANDARD
            .decode(&frame.data)
            .unwrap_or_default();
        let Ok(image) = image::load_from_memory_with_format(&jpeg, image::ImageFormat::Jpeg) else {
            continue;
        };
        // A quarter-size binary PPM (the crate is built with JPEG only).
        let small = image.thumbnail(400, 300).to_rgb8();
        let mut ppm = format!("P6\n{} {}\n255\n", small.width(), small.height()).into_bytes();
        ppm.extend_from_slice(small.as_raw());
        let path = format!("{ODD_DIR}/{tag}-{:.0}ms-{}x{}.ppm", j.ms, j.width, j.height);
        let _ = std::fs::write(path, ppm);
    }
}

fn spread(values: &[f64]) -> String {
    if values.is_empty() {
        return "-".into();
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    format!(
        "median {:.0} ms, {:.0}–{:.0}",
        v[v.len() / 2],
        v[0],
        v[v.len() - 1]
    )
}

const FLUID_RESET: &[Call] = &[
    Call::Metrics {
        scale: 1,
        extra: keep_visible,
    },
    Call::Visible { scale: 1 },
];

async fn trial(tab: &mut Tab, variant: &Variant, tally: &mut Tally) {
    // Fluid and still: reset, move a little, stop, wait for quiet.
    tab.switch(FLUID_RESET, false, Instant::now()).await;
    tab.eval("move(true)").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    tab.eval("move(false)").await;
    let before = tab.quiet().await.map(|f| judge(&f, Instant::now()));
    let page_fluid = tab
        .eval("[devicePixelRatio, innerWidth, innerHeight].join(' ')")
        .await;
    println!(
        "    fluid, still: last frame {}; page dpr/innerWidth/innerHeight {page_fluid}",
        before.map_or("none".into(), |j| format!(
            "{}×{} {:?}",
            j.width, j.height, j.look
        ))
    );

    // Fluid → sharp on the still page.
    let since = Instant::now();
    let (answers, shots) = tab
        .switch_with(variant.sharp, variant.pipelined, since)
        .await;
    let frames = tab.frames_until(since + WATCH).await;
    let shots: Vec<Judged> = shots.iter().map(|f| judge(f, since)).collect();
    let judged: Vec<Judged> = frames.iter().map(|f| judge(f, since)).collect();
    keep_odd(variant.name, &frames, &judged);
    for shot in &shots {
        println!("    screenshot: {}", shot.text());
    }
    tally
        .shots
        .extend(shots.iter().map(|j| (j.ms, j.width, j.look.clone())));
    let page = tab
        .eval(
            "[devicePixelRatio, innerWidth, innerHeight, visualViewport.scale, \
             screen.width, outerWidth].join(' ')",
        )
        .await
        .as_str()
        .unwrap_or_default()
        .to_string();
    let full = CSS.0 * DSF;
    let first_sharp = judged
        .iter()
        .chain(&shots)
        .filter(|j| j.whole_at(full))
        .map(|j| j.ms)
        .reduce(f64::min);
    let glitches = judged.iter().filter(|j| j.look != Look::Whole).count();
    println!(
        "    to sharp: answers at {:?} ms; {} frames: [{}]; page dpr/iw/ih/vv/screen/outer {page}",
        answers.iter().map(|a| a.round()).collect::<Vec<_>>(),
        judged.len(),
        judged
            .iter()
            .map(Judged::text)
            .collect::<Vec<_>>()
            .join("; ")
    );
    tally.sharp_frames += judged.len();
    tally.sharp_glitches += glitches;
    match first_sharp {
        Some(ms) => tally.sharp.push(ms),
        None => tally.sharp_missing += 1,
    }
    tally.page.push(page);

    // Sharp → fluid when the page moves again: from the first frame of the motion.
    tab.eval("move(true)").await;
    let moved = tab.next_frame().await.map(|f| judge(&f, Instant::now()));
    let since = Instant::now();
    let answers = tab.switch(variant.fluid, variant.pipelined, since).await;
    let frames = tab.frames_until(since + WATCH).await;
    tab.eval("move(false)").await;
    let judged: Vec<Judged> = frames.iter().map(|f| judge(f, since)).collect();
    keep_odd(variant.name, &frames, &judged);
    let first_fluid = judged.iter().find(|j| j.whole_at(CSS.0));
    let glitches = judged.iter().filter(|j| j.look != Look::Whole).count();
    let shown: Vec<String> = judged.iter().take(4).map(Judged::text).collect();
    println!(
        "    to fluid (moving; its first frame {}): answers at {:?} ms; {} frames, first: [{}]",
        moved.map_or("none".into(), |j| format!("{}×{}", j.width, j.height)),
        answers.iter().map(|a| a.round()).collect::<Vec<_>>(),
        judged.len(),
        shown.join("; ")
    );
    tally.fluid_glitches += glitches;
    match first_fluid {
        Some(j) => tally.fluid.push(j.ms),
        None => tally.fluid_missing += 1,
    }
}

pub async fn run() {
    let pages = PageServer::start().await;
    let chromium =
        BareChromium::launch_with(&[&format!("--window-size={},{}", CSS.0, CSS.1)]).await;
    let cdp = chromium.cdp().await;
    let mut tab = Tab::open(cdp, &pages.url("/bench/corners")).await;
    let version = tab.cdp.call("Browser.getVersion", json!({})).await;
    println!(
        "retina probe: {} headless, 800×600 CSS at deviceScaleFactor 2, frames within {} ms \
         of the first call (load {})",
        version.map_or("?".into(), |v| v["product"].to_string()),
        WATCH.as_millis(),
        crate::stream_stats::load_average()
    );
    // `porthole-bench retina-probe [a,c,h1…]`: only the variants named.
    let only: Option<Vec<String>> = std::env::args()
        .nth(2)
        .map(|list| list.split(',').map(str::to_string).collect());
    let chosen = VARIANTS.iter().filter(|v| {
        let tag = v.name.split(':').next().unwrap_or_default();
        only.as_ref()
            .is_none_or(|only| only.iter().any(|o| o == tag))
    });
    let trials: usize = std::env::args()
        .nth(3)
        .and_then(|n| n.parse().ok())
        .unwrap_or(TRIALS);
    let mut summary = Vec::new();
    for variant in chosen {
        println!("  {}", variant.name);
        let mut tally = Tally::default();
        for _ in 0..trials {
            trial(&mut tab, variant, &mut tally).await;
        }
        summary.push((variant.name, tally));
    }
    println!("summary:");
    for (name, t) in &summary {
        let mut pages = t.page.clone();
        pages.dedup();
        println!(
            "  {name}\n    to sharp: whole 1600-wide frame in {}/{trials} ({}), {} of {} frames \
             not the whole page; page after: {pages:?}\n    to fluid: whole 800-wide frame in \
             {}/{trials} ({}), {} frames not the whole page",
            t.sharp.len(),
            spread(&t.sharp),
            t.sharp_glitches,
            t.sharp_frames,
            t.fluid.len(),
            spread(&t.fluid),
            t.fluid_glitches,
        );
        if !t.shots.is_empty() {
            let ms: Vec<f64> = t.shots.iter().map(|s| s.0).collect();
            println!(
                "    screenshots: {} ({}), sizes/looks {:?}",
                t.shots.len(),
                spread(&ms),
                t.shots
                    .iter()
                    .map(|s| (s.1, s.2.clone()))
                    .collect::<Vec<_>>()
            );
        }
        let _ = (t.sharp_missing, t.fluid_missing);
    }
}
