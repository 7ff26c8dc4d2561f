//! The wheel bench's baselines on a bare Chromium through raw CDP, on the same `/scroll` page:
//! the floor (one wheel event dispatched alone on an idle page, to the frame that shows it:
//! what Chrome alone needs) and a naive stream (every event of a 120 Hz stream a CDP round
//! trip, in order, none merged).
//!
//! Frames are acked and stamped by one task and decoded by another, so decoding never delays
//! the reading of the next frame.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use porthole::bench_hooks::cdp::CdpConnection;
use porthole_tests::chromium::BareChromium;
use porthole_tests::pages::{decode_blocks, PageServer};
use serde_json::{json, Value};
use tokio::sync::watch;

use crate::page_scroll::{wall_us, PageScroll, SCROLL_LOG};

/// One screencast frame of the raw tab.
#[derive(Debug, Clone, Copy)]
pub struct RawFrame {
    pub arrived: Instant,
    /// Chrome's swap (µs since the epoch; 0 when Chrome sent no timestamp).
    pub swap_us: u64,
    pub value: Option<u32>,
}

/// A bare Chromium's `/scroll` tab, cast over raw CDP.
pub struct RawTab {
    _chromium: BareChromium,
    pub cdp: CdpConnection,
    pub session: String,
    frames: Arc<Mutex<Vec<RawFrame>>>,
    decoded: watch::Receiver<usize>,
}

impl RawTab {
    /// Launches Chromium, opens `/scroll` at 800×600, starts the cast and the page's scroll log.
    pub async fn open(pages: &PageServer) -> Self {
        let opened = Instant::now();
        let chromium = BareChromium::launch().await;
        let cdp = CdpConnection::connect(&chromium.ws_url, Duration::from_secs(10))
            .await
            .unwrap();
        let (target, session) = porthole_tests::raw_cdp::open(&cdp, &pages.url("/scroll")).await;
        cdp.call("Target.activateTarget", json!({"targetId": target}))
            .await
            .unwrap();
        cdp.call_on(
            &session,
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 800, "height": 600, "deviceScaleFactor": 1, "mobile": false}),
        )
        .await
        .unwrap();
        let mut events = cdp.subscribe();
        cdp.call_on(
            &session,
            "Page.startScreencast",
            json!({"format": "jpeg", "quality": 60}),
        )
        .await
        .unwrap();
        let frames = Arc::new(Mutex::new(Vec::new()));
        let (count, decoded) = watch::channel(0usize);
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(Instant, u64, String)>();
        {
            let (cdp, session) = (cdp.clone(), session.clone());
            tokio::spawn(async move {
                loop {
                    let event = match events.recv().await {
                        Ok(event) => event,
                        // Missed events: the frames after them are still to be acked.
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                        Err(_) => return,
                    };
                    let arrived = Instant::now();
                    if !crate::raw_screencast::ack_frame(&cdp, &event, &session) {
                        continue;
                    }
                    let swap_us = event.params["metadata"]["timestamp"]
                        .as_f64()
                        .map_or(0, |s| (s * 1e6) as u64);
                    let data = event.params["data"].as_str().unwrap_or_default();
                    if tx.send((arrived, swap_us, data.to_string())).is_err() {
                        return;
                    }
                }
            });
        }
        {
            let frames = frames.clone();
            tokio::spawn(async move {
                while let Some((arrived, swap_us, data)) = rx.recv().await {
                    let jpeg = base64::engine::general_purpose::STANDARD
                        .decode(data)
                        .unwrap_or_default();
                    let value = decode_blocks(&jpeg);
                    frames.lock().unwrap().push(RawFrame {
                        arrived,
                        swap_us,
                        value,
                    });
                    count.send_modify(|n| *n += 1);
                }
            });
        }
        let tab = Self {
            _chromium: chromium,
            cdp,
            session,
            frames,
            decoded,
        };
        tab.frame_showing(0, opened).await;
        tab.eval(SCROLL_LOG).await;
        tab
    }

    /// Evaluates `expression` in the page.
    pub async fn eval(&self, expression: &str) -> Value {
        let params = json!({"expression": expression, "returnByValue": true});
        porthole_tests::raw_cdp::evaluate(&self.cdp, &self.session, params).await
    }

    /// The first frame that arrived at or after `after` showing `value` (waits up to 60 s).
    pub async fn frame_showing(&self, value: u32, after: Instant) -> RawFrame {
        let mut decoded = self.decoded.clone();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            decoded.borrow_and_update();
            let found = self
                .frames
                .lock()
                .unwrap()
                .iter()
                .find(|f| f.arrived >= after && f.value == Some(value))
                .copied();
            if let Some(found) = found {
                return found;
            }
            match tokio::time::timeout_at(deadline, decoded.changed()).await {
                Ok(Ok(())) => {}
                _ => panic!("no raw frame showing {value} within 60 s"),
            }
        }
    }

    async fn wheel(&self, delta_y: u32) {
        let _ = self
            .cdp
            .call_on(
                &self.session,
                "Input.dispatchMouseEvent",
                json!({"type": "mouseWheel", "x": 400, "y": 300, "deltaX": 0, "deltaY": delta_y}),
            )
            .await;
    }
}

/// One wheel event alone on an idle page, stamped at each stage (µs since the epoch).
#[derive(Debug, Clone, Copy)]
pub struct Floor {
    pub sent_us: u64,
    pub answered_us: u64,
    /// The page's `scroll` event at the new offset.
    pub scrolled_us: u64,
    pub swap_us: u64,
    pub client_us: u64,
}

/// `runs` single wheel events of `delta` on `tab`, each once the last one's frame is in.
pub async fn floor(tab: &RawTab, runs: usize, delta: u32) -> Vec<Floor> {
    let mut out = Vec::new();
    let mut offset = tab.eval("scrollY").await.as_u64().unwrap_or(0) as u32;
    for _ in 0..runs {
        tab.eval("window.__wheelLog = []; true").await;
        let sent = Instant::now();
        let sent_us = wall_us(sent);
        tab.wheel(delta).await;
        let answered_us = wall_us(Instant::now());
        offset += delta;
        let frame = tab.frame_showing(offset, sent).await;
        let scroll = PageScroll::parse(&tab.eval("window.__wheelLog").await);
        out.push(Floor {
            sent_us,
            answered_us,
            scrolled_us: scroll.reached(offset).unwrap_or(0),
            swap_us: frame.swap_us,
            client_us: wall_us(frame.arrived),
        });
    }
    out
}

/// A naive client: `events` wheel events of `delta` at `hz`, each a CDP round trip, in order,
/// none merged; the last event sent → the frame showing the final offset at the client.
pub async fn naive_stream(tab: &RawTab, events: u32, delta: u32, hz: u64) -> Duration {
    let start = tab.eval("scrollY").await.as_u64().unwrap_or(0) as u32;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let dispatcher = {
        let (cdp, session) = (tab.cdp.clone(), tab.session.clone());
        tokio::spawn(async move {
            while rx.recv().await.is_some() {
                let _ = cdp
                    .call_on(
                        &session,
                        "Input.dispatchMouseEvent",
                        json!({"type": "mouseWheel", "x": 400, "y": 300, "deltaX": 0, "deltaY": delta}),
                    )
                    .await;
            }
        })
    };
    let mut tick = tokio::time::interval(Duration::from_micros(1_000_000 / hz));
    for _ in 0..events {
        tick.tick().await;
        let _ = tx.send(());
    }
    let last = Instant::now();
    drop(tx);
    let frame = tab.frame_showing(start + events * delta, last).await;
    let _ = dispatcher.await;
    frame.arrived.saturating_duration_since(last)
}
