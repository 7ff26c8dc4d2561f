//! What the benches measure a screencast and a process with: a raw pane socket that stamps
//! each frame on arrival and decodes the clock it paints after the window, off the timed path
//! (frames per second, paint → client latency), medians, and a process's CPU time and
//! resident memory from `/proc`.

use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::{SinkExt, StreamExt};
use porthole_tests::pages::decode_blocks;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

/// The wall clock in ms mod 2^24, as the bench pages paint it.
pub fn now_ms24() -> i64 {
    (SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis()
        % 16_777_216) as i64
}

/// The median (NaN for none); sorts `values`.
pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The median of `values` (NaN for none), leaving them as they are.
pub fn median_of(values: &[f64]) -> f64 {
    median(&mut values.to_vec())
}

/// `d` in milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The machine's load averages (1, 5, 15 min) as `/proc/loadavg` says them.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Frames and latencies seen by one client over a window.
#[derive(Default, Debug)]
pub struct Stream {
    pub frames: usize,
    /// Bytes of all frames.
    pub bytes: usize,
    /// Paint → arrival of each frame whose painted clock could be read, in arrival order (ms).
    pub latencies: Vec<f64>,
}

impl Stream {
    /// Counts `other`'s frames and latencies in with these (turns of one stream).
    pub fn add(&mut self, other: Stream) {
        self.frames += other.frames;
        self.bytes += other.bytes;
        self.latencies.extend(other.latencies);
    }
}

/// Frames as they arrived: the arrival stamp (ms, as the page's clock) taken the moment the
/// frame came off its socket, and the still-encoded frame. Decoding happens after the window.
#[derive(Default)]
pub struct Arrivals(pub Vec<(i64, Vec<u8>)>);

impl Arrivals {
    /// Decodes every frame's painted clock into the stream's latencies.
    pub fn into_stream(self) -> Stream {
        let mut stream = Stream {
            frames: self.0.len(),
            bytes: self.0.iter().map(|(_, jpeg)| jpeg.len()).sum(),
            latencies: Vec::new(),
        };
        for (arrived, jpeg) in self.0 {
            if let Some(painted) = decode_blocks(&jpeg) {
                let diff = (arrived - painted as i64).rem_euclid(16_777_216);
                stream.latencies.push(diff as f64);
            }
        }
        stream
    }
}

/// A raw pane socket on `channel` (in its current mode), frames stamped on arrival, for
/// `window`.
pub async fn pane_stream(addr: &str, token: &str, channel: &str, window: Duration) -> Stream {
    let start = json!({"type": "start", "channel_id": channel, "width": 800, "height": 600});
    pane_stream_with(addr, token, start, window).await
}

/// As [`pane_stream`] with the given `start` message (e.g. one naming a mode).
pub async fn pane_stream_with(addr: &str, token: &str, start: Value, window: Duration) -> Stream {
    let mut request = format!("ws://{addr}/api/ws/browser")
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("Authorization", format!("Bearer {token}").parse().unwrap());
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    socket.send(Message::text(start.to_string())).await.unwrap();
    socket
        .send(Message::text(
            json!({"type": "screencast", "quality": 60}).to_string(),
        ))
        .await
        .unwrap();
    let mut arrivals = Arrivals::default();
    let end = Instant::now() + window;
    while let Ok(Some(Ok(message))) = tokio::time::timeout_at(end.into(), socket.next()).await {
        let arrived = now_ms24();
        if Instant::now() >= end {
            break;
        }
        if let Message::Binary(jpeg) = message {
            arrivals.0.push((arrived, jpeg.to_vec()));
        }
    }
    arrivals.into_stream()
}

/// CPU seconds (user + system) a process has used so far; 0 when it is gone.
pub fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after_name = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks: f64 = fields.get(11).and_then(|v| v.parse().ok()).unwrap_or(0.0)
        + fields.get(12).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    ticks / 100.0
}

/// CPU ns and times scheduled in, by thread name (see [`cpu_by_thread`]).
pub type Threads = std::collections::BTreeMap<String, (u64, u64)>;

/// What each thread name used from `before` to `after` (two readings of [`cpu_by_thread`]).
pub fn threads_spent(before: &Threads, after: &Threads) -> Threads {
    after
        .iter()
        .map(|(name, (ns, slices))| {
            let (ns0, slices0) = before.get(name).copied().unwrap_or_default();
            (
                name.clone(),
                (ns.saturating_sub(ns0), slices.saturating_sub(slices0)),
            )
        })
        .collect()
}

/// CPU ns and times scheduled in (`/proc/<pid>/task/*/schedstat`) of a process's threads,
/// by thread name without its trailing digits (a runtime's workers and blocking threads share
/// a name). Threads that ended are not counted.
pub fn cpu_by_thread(pid: u32) -> Threads {
    let mut by_name = std::collections::BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return by_name;
    };
    for task in tasks.flatten() {
        let read = |file: &str| std::fs::read_to_string(task.path().join(file)).ok();
        let (Some(comm), Some(stat)) = (read("comm"), read("schedstat")) else {
            continue;
        };
        let mut fields = stat.split_whitespace().map(str::parse::<u64>);
        let (Some(Ok(ns)), _, Some(Ok(slices))) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let name = comm
            .trim()
            .trim_end_matches(|c: char| c.is_ascii_digit())
            .to_string();
        let entry: &mut (u64, u64) = by_name.entry(name).or_default();
        entry.0 += ns;
        entry.1 += slices;
    }
    by_name
}

/// Every process: pid → (parent pid, command line with spaces).
pub fn processes() -> HashMap<u32, (u32, String)> {
    let mut all = HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return all;
    };
    for entry in dir.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse().ok())
            .unwrap_or(0);
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
            .unwrap_or_default();
        all.insert(pid, (ppid, cmdline));
    }
    all
}

/// `root` and every descendant of it.
pub fn tree(root: u32, all: &HashMap<u32, (u32, String)>) -> Vec<u32> {
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(
            all.iter()
                .filter(|(_, (ppid, _))| *ppid == parent)
                .map(|(pid, _)| *pid),
        );
        i += 1;
    }
    found
}

/// CPU seconds used so far by `root` and all its descendants, the reaped ones included (a
/// live process's own time plus what its reaped children used).
pub fn tree_cpu_seconds(root: u32) -> f64 {
    let all = processes();
    tree(root, &all)
        .into_iter()
        .map(cpu_seconds_with_reaped)
        .sum()
}

/// CPU seconds used so far by `root` and its descendants, by kind of process: the bench itself,
/// the daemon, porthole-mcp, Chromium's browser process and each `--type=` of its children (a
/// zygote's figure includes the renderers it reaped). Two readings subtracted say where the
/// CPU in between went.
pub fn tree_cpu_by_kind(root: u32) -> std::collections::BTreeMap<String, f64> {
    let all = processes();
    let mut by_kind = std::collections::BTreeMap::new();
    for pid in tree(root, &all) {
        let kind = if pid == root {
            "bench".to_string()
        } else {
            process_kind(&all[&pid].1)
        };
        *by_kind.entry(kind).or_insert(0.0) += cpu_seconds_with_reaped(pid);
    }
    by_kind
}

/// What a command line runs, for [`tree_cpu_by_kind`].
fn process_kind(cmdline: &str) -> String {
    let program = cmdline.split_whitespace().next().unwrap_or("");
    let name = program.rsplit('/').next().unwrap_or(program);
    if name.contains("chrom") {
        match cmdline.split("--type=").nth(1) {
            Some(rest) => format!("chromium {}", rest.split_whitespace().next().unwrap_or("")),
            None => "chromium browser".into(),
        }
    } else if name == "porthole" {
        "daemon".into()
    } else {
        name.to_string()
    }
}

/// A process's own CPU seconds plus its reaped children's.
fn cpu_seconds_with_reaped(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after_name = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    let ticks: f64 = after_name
        .split_whitespace()
        .skip(11)
        .take(4)
        .filter_map(|v| v.parse::<f64>().ok())
        .sum();
    ticks / 100.0
}

/// Resident memory of a process in MiB; 0 when it is gone.
pub fn rss_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}
