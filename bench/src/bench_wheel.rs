//! `porthole-bench wheel` (part 4 of the full run): a 2 s, 120 Hz wheel stream through a pane,
//! last event sent → the frame that shows the final scroll at the client, in [`RUNS`] runs,
//! with the time split by stage (medians over the runs):
//!
//! client sent → daemon read → taken from the pane's queue → `Input.dispatchMouseEvent` sent →
//! Chrome's answer → the page's `scroll` event at the final offset → the daemon read the frame
//! from Chrome → socket written → client. Chrome's frame timestamp (`metadata.timestamp`) is
//! printed where known, but it can read later than the client's arrival (seen: −0.6 to −7 ms on
//! the raw floor), so it is no swap time to split the stages by.
//!
//! The daemon's stamps come from its bench-only `input_stages` / `wheel_frame` log lines (wall
//! clock, like Chrome's frame timestamps and the page's own `scroll` timestamps, read through a
//! probe). Beside it, the baselines of [`crate::bench_wheel_raw`]: one event alone through raw
//! CDP (the floor: what Chrome alone needs) and the naive raw stream.

use std::time::{Duration, Instant};

use porthole_tests::daemon::TestDaemon;
use porthole_tests::devtools_port::Probe;
use porthole_tests::pages::{decode_blocks, PageServer};
use porthole_tests::pane::Pane;
use serde_json::json;

use crate::bench_wheel_raw::{self as raw, RawTab};
use crate::page_scroll::{wall_us, PageScroll, SCROLL_LOG};
use crate::stream_stats::median;

/// Runs of the stream through the daemon (and single events for the floor).
pub const RUNS: usize = 5;
const EVENTS: u32 = 240;
const DELTA: u32 = 10;
const HZ: u64 = 120;

/// One `input_stages` line of the daemon.
#[derive(Debug, Clone, Copy)]
struct Dispatch {
    delta_y: f64,
    read_us: u64,
    popped_us: u64,
    sent_us: u64,
    replied_us: u64,
}

/// One `wheel_frame` line of the daemon.
#[derive(Debug, Clone, Copy)]
struct Written {
    swap_us: u64,
    received_us: u64,
    written_us: u64,
}

/// From `from` to `to` (µs since the epoch) in ms; NaN when either is unknown (0).
fn ms(from: u64, to: u64) -> f64 {
    if from == 0 || to == 0 {
        return f64::NAN;
    }
    (to as f64 - from as f64) / 1000.0
}

fn field(line: &str, name: &str) -> Option<f64> {
    let at = line.find(&format!(" {name}="))? + name.len() + 2;
    line[at..]
        .split_whitespace()
        .next()?
        .trim_matches('"')
        .parse()
        .ok()
}

fn dispatches(log: &str) -> Vec<Dispatch> {
    log.lines()
        .filter(|l| l.contains("input_stages") && l.contains("replied_us="))
        .filter_map(|l| {
            Some(Dispatch {
                delta_y: field(l, "delta_y")?,
                read_us: field(l, "read_us")? as u64,
                popped_us: field(l, "popped_us")? as u64,
                sent_us: field(l, "sent_us")? as u64,
                replied_us: field(l, "replied_us")? as u64,
            })
        })
        .collect()
}

fn writes(log: &str) -> Vec<Written> {
    log.lines()
        .filter(|l| l.contains("wheel_frame") && l.contains("written_us="))
        .filter_map(|l| {
            Some(Written {
                swap_us: field(l, "swap_us")? as u64,
                received_us: field(l, "received_us")? as u64,
                written_us: field(l, "written_us")? as u64,
            })
        })
        .collect()
}

/// The first frame, among those after the first `from` the pane received, that shows `value`;
/// its arrival. Frames are copied out of the pane's lock and decoded outside it, so the pane's
/// reader (which stamps arrivals under that lock) is never held up by decoding.
async fn frame_showing(pane: &Pane, value: u32, from: usize) -> Instant {
    let mut next = from;
    loop {
        let fresh = pane
            .wait("new frames", Duration::from_secs(60), |r| {
                let first = r.frame_count - r.frames.len();
                let fresh: Vec<(usize, Vec<u8>, Instant)> = (0..r.frames.len())
                    .filter(|i| first + i >= next)
                    .map(|i| (first + i, r.frames[i].clone(), r.frame_times[i]))
                    .collect();
                (!fresh.is_empty()).then_some(fresh)
            })
            .await;
        for (n, jpeg, at) in fresh {
            next = n + 1;
            if decode_blocks(&jpeg) == Some(value) {
                return at;
            }
        }
    }
}

/// One stream through the daemon, stamped by stage.
#[derive(Debug, Clone, Copy)]
struct Run {
    total_ms: f64,
    /// Each stage in ms; NaN where the daemon wrote no stage lines (a build without them).
    to_read: f64,
    queued: f64,
    slot: f64,
    answered: f64,
    to_scroll: f64,
    /// Page scroll event → the daemon read the frame from Chrome (Chrome's paint, composite,
    /// capture and encode).
    to_frame: f64,
    /// Chrome's frame timestamp → the daemon's read, where the timestamp precedes the read.
    swap_to_daemon: f64,
    daemon_to_socket: f64,
    socket_to_client: f64,
    /// px the page's scroll trailed what was sent, when the last event was sent.
    page_behind_px: f64,
    /// px the daemon had not yet dispatched, when the last event was sent.
    undispatched_px: f64,
    /// `scroll` events after Chrome's last wheel answer until the final offset.
    scrolls_after_answer: f64,
    dispatches: f64,
    /// Median sent → answer over all of the run's dispatches.
    answer_all: f64,
}

async fn stream_through(daemon: &TestDaemon, pane: &Pane, probe: &Probe, tab: &str) -> Run {
    let start = probe.eval(tab, "scrollY").await.as_u64().unwrap_or(0) as u32;
    probe.eval(tab, SCROLL_LOG).await;
    let log_from = daemon.log().len();
    let frames_from = pane.frame_count();
    let mut tick = tokio::time::interval(Duration::from_micros(1_000_000 / HZ));
    for _ in 0..EVENTS {
        tick.tick().await;
        pane.input("scroll", json!({"x": 400, "y": 300, "delta_y": DELTA}));
    }
    let last = Instant::now();
    let target = start + EVENTS * DELTA;
    let arrived = frame_showing(pane, target, frames_from).await;
    let (last_us, client_us) = (wall_us(last), wall_us(arrived));
    let mut run = Run {
        total_ms: arrived.saturating_duration_since(last).as_secs_f64() * 1000.0,
        to_read: f64::NAN,
        queued: f64::NAN,
        slot: f64::NAN,
        answered: f64::NAN,
        to_scroll: f64::NAN,
        to_frame: f64::NAN,
        swap_to_daemon: f64::NAN,
        daemon_to_socket: f64::NAN,
        socket_to_client: f64::NAN,
        page_behind_px: f64::NAN,
        undispatched_px: f64::NAN,
        scrolls_after_answer: f64::NAN,
        dispatches: f64::NAN,
        answer_all: f64::NAN,
    };
    let scroll = PageScroll::parse(&probe.eval(tab, "window.__wheelLog").await);
    let log = daemon.log();
    let log = log.get(log_from..).unwrap_or_default();
    let sent = dispatches(log);
    // The dispatch that carried the last event: the newest read (answers are logged in the
    // order they were taken, which is not the order of sending).
    let Some(final_dispatch) = sent.iter().max_by_key(|d| d.read_us).copied() else {
        return run;
    };
    let scrolled = scroll.reached(target).unwrap_or(0);
    run.page_behind_px = f64::from(target - scroll.at(last_us, start));
    // The daemon stamps a write after the socket took it, maybe after the client read it; it
    // read the frame from Chrome before. After the final offset the page paints nothing more.
    let frame = writes(log)
        .into_iter()
        .rfind(|w| w.received_us <= client_us);
    run.to_read = ms(last_us, final_dispatch.read_us);
    run.queued = ms(final_dispatch.read_us, final_dispatch.popped_us);
    run.slot = ms(final_dispatch.popped_us, final_dispatch.sent_us);
    run.answered = ms(final_dispatch.sent_us, final_dispatch.replied_us);
    run.to_scroll = ms(final_dispatch.replied_us, scrolled);
    if let Some(frame) = frame {
        run.to_frame = ms(scrolled, frame.received_us);
        run.swap_to_daemon = ms(frame.swap_us, frame.received_us);
        run.daemon_to_socket = ms(frame.received_us, frame.written_us);
        run.socket_to_client = ms(frame.written_us, client_us);
    }
    let dispatched: f64 = sent
        .iter()
        .filter(|d| d.sent_us <= last_us)
        .map(|d| d.delta_y)
        .sum();
    run.undispatched_px = f64::from(EVENTS * DELTA) - dispatched;
    run.scrolls_after_answer = scroll
        .0
        .iter()
        .filter(|(t, y)| *t > final_dispatch.replied_us && *y <= target)
        .count() as f64;
    run.dispatches = sent.len() as f64;
    run.answer_all = median(
        &mut sent
            .iter()
            .map(|d| ms(d.sent_us, d.replied_us))
            .collect::<Vec<_>>(),
    );
    println!(
        "    run: {:.0} ms = to daemon {:.1} + queue {:.1} + slot {:.1} + answer {:.1} + to scroll {:.1} + scroll → client {:.1}; {} dispatches, answers {:.1} ms median",
        run.total_ms,
        run.to_read,
        run.queued,
        run.slot,
        run.answered,
        run.to_scroll,
        ms(scrolled, client_us),
        sent.len(),
        run.answer_all,
    );
    let summed: f64 = sent.iter().map(|d| d.delta_y).sum();
    assert_eq!(
        summed,
        f64::from(EVENTS * DELTA),
        "the daemon's wheel dispatches must sum to what was scrolled"
    );
    run
}

/// Part 4: [`RUNS`] streams through the daemon, then the raw floor and the naive raw stream.
pub async fn run(daemon: &TestDaemon, pages: &PageServer) {
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    let tab = pane.start("wheel").await;
    pane.open_page(&pages.url("/scroll"), "Scroll").await;
    pane.watch().await;
    let probe = Probe::connect(&daemon.profile_dir("wheel")).await;
    let mut runs = Vec::new();
    for _ in 0..RUNS {
        runs.push(stream_through(daemon, &pane, &probe, &tab).await);
    }
    let raw_tab = RawTab::open(pages).await;
    let floor = raw::floor(&raw_tab, RUNS, DELTA).await;
    let naive = raw::naive_stream(&raw_tab, EVENTS, DELTA, HZ).await;
    print(&runs, &floor, naive);
}

fn print(runs: &[Run], floor: &[raw::Floor], naive: Duration) {
    let med = |pick: fn(&Run) -> f64| median(&mut runs.iter().map(pick).collect::<Vec<_>>());
    let total = med(|r| r.total_ms);
    let all: Vec<String> = runs.iter().map(|r| format!("{:.0}", r.total_ms)).collect();
    println!("{} s of {HZ} Hz wheel events ({EVENTS} × {DELTA} px), last event → frame with the final scroll:", EVENTS as u64 / HZ);
    println!(
        "  daemon {total:6.0} ms median of {} runs ({} ms; goal ≤ 100)",
        runs.len(),
        all.join(", ")
    );
    println!(
        "  stages (median ms): client sent → daemon read {:.1}, read → taken from the queue {:.1}, \
         taken → sent to Chrome {:.1}, sent → Chrome's answer {:.1}, answer → page scroll event at \
         the final offset {:.1}, → its frame read by the daemon {:.1} (of which Chrome's frame \
         timestamp → daemon read {:.1}), daemon read → socket written {:.1}, socket → client {:.1}",
        med(|r| r.to_read),
        med(|r| r.queued),
        med(|r| r.slot),
        med(|r| r.answered),
        med(|r| r.to_scroll),
        med(|r| r.to_frame),
        med(|r| r.swap_to_daemon),
        med(|r| r.daemon_to_socket),
        med(|r| r.socket_to_client),
    );
    println!(
        "  at the last event sent: the daemon had {:.0} px not yet sent to Chrome, the page's \
         scroll trailed by {:.0} px; {:.0} scroll events after Chrome's last answer; {:.0} \
         dispatches for {EVENTS} events (medians)",
        med(|r| r.undispatched_px),
        med(|r| r.page_behind_px),
        med(|r| r.scrolls_after_answer),
        med(|r| r.dispatches),
    );
    let fmed =
        |pick: fn(&raw::Floor) -> f64| median(&mut floor.iter().map(pick).collect::<Vec<_>>());
    println!(
        "  floor, raw CDP, one {DELTA} px event alone on an idle page (median of {}): sent → frame at \
         the client {:.1} ms (sent → answer {:.1}, answer → page scroll {:.1}, page scroll → frame at \
         the client {:.1}; Chrome's frame timestamp → client {:.1}: the timestamp is no swap time \
         when negative)",
        floor.len(),
        fmed(|f| ms(f.sent_us, f.client_us)),
        fmed(|f| ms(f.sent_us, f.answered_us)),
        fmed(|f| ms(f.answered_us, f.scrolled_us)),
        fmed(|f| ms(f.scrolled_us, f.client_us)),
        fmed(|f| ms(f.swap_us, f.client_us)),
    );
    println!(
        "  raw CDP stream (one round trip per event, none merged) {:.0} ms; daemon / raw stream {:.2}",
        naive.as_secs_f64() * 1000.0,
        total / (naive.as_secs_f64() * 1000.0).max(0.001)
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_the_stage_lines() {
        let log = "2026 INFO porthole::browser::input::stages: one wheel dispatch event=\"input_stages\" kind=\"wheel\" events=3 delta_y=30.0 in_flight=2 read_us=100 popped_us=150 sent_us=200 replied_us=900\n\
                   2026 INFO porthole::browser::input::stages: a frame event=\"wheel_frame\" swap_us=5 received_us=7 written_us=9\n";
        let d = super::dispatches(log);
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].delta_y, d[0].replied_us), (30.0, 900));
        let w = super::writes(log);
        assert_eq!((w[0].swap_us, w[0].written_us), (5, 9));
    }
}
