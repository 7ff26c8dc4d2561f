//! Reads the daemon's `frame_stages` log lines (bench only: the daemon writes them when started
//! with `PORTHOLE_BENCH_FRAME_STAGES=1`, see `porthole::bench_hooks::frame_stages`) and prints
//! where a frame's time inside the daemon goes, so the latency the daemon adds is attributed.

/// The medians of the `frame_stages` lines in `log`, as `(field, microseconds)`, each field's
/// median taken over the lines (one line per second of streaming).
pub fn medians(log: &str) -> Vec<(String, f64)> {
    const FIELDS: [&str; 5] = [
        "swap_to_cdp_us",
        "cdp_to_hub_us",
        "decode_us",
        "hub_to_socket_us",
        "cdp_to_socket_us",
    ];
    let lines: Vec<&str> = log.lines().filter(|l| l.contains("frame_stages")).collect();
    FIELDS
        .iter()
        .filter_map(|field| {
            let mut values: Vec<f64> = lines
                .iter()
                .filter_map(|line| value_of(line, field))
                .collect();
            (!values.is_empty())
                .then(|| (field.to_string(), crate::stream_stats::median(&mut values)))
        })
        .collect()
}

fn value_of(line: &str, field: &str) -> Option<f64> {
    let at = line.find(&format!("{field}="))? + field.len() + 1;
    line[at..].split_whitespace().next()?.parse().ok()
}

/// One line: each stage's median in milliseconds, from the log written since `from` bytes.
pub fn print(log: &str, from: usize) {
    let stages = medians(log.get(from..).unwrap_or_default());
    if stages.is_empty() {
        println!("  stages: no frame_stages lines in the daemon's log");
        return;
    }
    let ms = |name: &str| {
        stages
            .iter()
            .find(|(f, _)| f == name)
            .map_or(f64::NAN, |(_, us)| us / 1000.0)
    };
    println!(
        "  stages in the daemon (median ms): Chrome's swap → CDP read {:.2}, CDP read → hub {:.2}, base64 decode + publish {:.2}, publish → socket written {:.2}; CDP read → socket {:.2}",
        ms("swap_to_cdp_us"),
        ms("cdp_to_hub_us"),
        ms("decode_us"),
        ms("hub_to_socket_us"),
        ms("cdp_to_socket_us"),
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_the_stage_fields() {
        let log = "x INFO porthole::browser::view::frame_stages: median frames=60 writes=60 cdp_to_hub_us=120 decode_us=300 hub_to_socket_us=80 cdp_to_socket_us=500\n\
                   x INFO other\n\
                   x INFO porthole::browser::view::frame_stages: median frames=60 writes=60 cdp_to_hub_us=100 decode_us=200 hub_to_socket_us=60 cdp_to_socket_us=400\n";
        let m = super::medians(log);
        assert_eq!(m.len(), 4, "no swap_to_cdp_us in these lines");
        assert_eq!(m[0], ("cdp_to_hub_us".to_string(), 120.0));
    }
}
