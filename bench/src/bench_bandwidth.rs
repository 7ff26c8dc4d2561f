//! `porthole-bench bandwidth` (issue 22, DESIGN.md §18): a pane watching a busy page on a
//! remote engine 25 ms away each way, through a [`DelayProxy`] that also limits the bytes per
//! second of each direction. Chrome sends the next screencast frame only once the daemon has
//! acknowledged enough of the earlier ones, and the daemon acknowledges a frame when it has read
//! it off the link: a slow link should lower the frame rate, never let frames queue up. The
//! bench shows which: per link, frames per second, bytes per second, paint → pane latency
//! (median and 90th percentile), and the median latency over the first and the last third of
//! the window (a queue shows as growth).

use std::time::Duration;

use porthole::bench_hooks::frame_stages;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::delay_proxy::{self, DelayProxy, Link};
use porthole_tests::docker::{self, DockerCleanup};
use porthole_tests::pages::{data_url, page};
use porthole_tests::pane::Pane;
use porthole_tests::remote::{self, RemoteTest};
use serde_json::json;

use crate::stream_stats::{load_average, median_of, pane_stream_with, Stream};

/// Each direction's delay.
const ONE_WAY_MS: u64 = 25;
/// The links: bytes per second each way (`None`: no limit).
const LIMITS: [Option<u64>; 4] = [None, Some(8_000_000), Some(2_000_000), Some(500_000)];
/// How long the pane watches on each link.
const WINDOW: Duration = Duration::from_secs(8);

fn link_name(limit: Option<u64>) -> String {
    match limit {
        None => "no limit".to_string(),
        Some(bytes) => format!("{:.1} MB/s", bytes as f64 / 1e6),
    }
}

/// The `q`-quantile of `values` (NaN for none).
fn quantile(values: &[f64], q: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// Watches the busy page on `channel` for [`WINDOW`].
async fn watch(daemon: &TestDaemon, channel: &str) -> Stream {
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(channel).await;
    pane.open_page(&data_url(&page("bench/busy-clock.html")), "Busy clock")
        .await;
    let start = json!({"type": "start", "channel_id": channel, "width": 800, "height": 600});
    let stream = pane_stream_with(&daemon.addr, &daemon.token, start, WINDOW).await;
    drop(pane);
    stream
}

fn print_row(name: &str, stream: &Stream) {
    let secs = WINDOW.as_secs_f64();
    let third = stream.latencies.len() / 3;
    let (first, last) = (
        median_of(&stream.latencies[..third]),
        median_of(&stream.latencies[stream.latencies.len() - third..]),
    );
    println!(
        "  {name:<10} {:6.1} frames/s {:6.2} MB/s  {:5.0} KB/frame  latency median {:6.0} ms  p90 {:6.0} ms  first third {:6.0} → last third {:6.0} ms",
        stream.frames as f64 / secs,
        stream.bytes as f64 / secs / 1e6,
        stream.bytes as f64 / stream.frames.max(1) as f64 / 1e3,
        median_of(&stream.latencies),
        quantile(&stream.latencies, 0.9),
        first,
        last,
    );
}

/// Runs the bandwidth bench and prints it.
pub async fn run() {
    if !docker::docker(&["info"]).0 {
        println!(
            "bandwidth: skipped, the local Docker engine does not answer (scripts/setup/docker.sh)"
        );
        return;
    }
    let remote_test = RemoteTest::with_image("bench-bw", None).await;
    let (engine, tag) = (&remote_test.engine, remote_test.tag.clone());
    let _local_cleanup = DockerCleanup::new(&tag);
    let target = delay_proxy::tcp_addr(&engine.host);
    println!(
        "Bandwidth: a pane watching a page that repaints noise every frame, remote engine \
         {ONE_WAY_MS} ms away each way, load {}:",
        load_average()
    );
    for (i, limit) in LIMITS.into_iter().enumerate() {
        let link = Link {
            one_way: Duration::from_millis(ONE_WAY_MS),
            bytes_per_sec: limit,
        };
        let proxy = DelayProxy::start(target, link).await;
        let via = delay_proxy::via(engine, &proxy);
        let daemon = TestDaemon::start_with(DaemonOptions {
            rust_log: "info",
            env: vec![(frame_stages::ENV.to_string(), "1".to_string())],
            ..remote::options(&via, &tag, json!({}))
        })
        .await;
        let log_from = daemon.log().len();
        let stream = watch(&daemon, &format!("{tag}-{i}")).await;
        print_row(&link_name(limit), &stream);
        crate::bench_stages::print(&daemon.log(), log_from);
        daemon.stop().await;
    }
}
