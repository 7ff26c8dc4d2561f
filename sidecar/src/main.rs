//! `porthole-sidecar`: PID 1 of the Porthole Chromium container.
//!
//! It starts Chromium headless with CDP on `--remote-debugging-pipe` (no DevTools port at all),
//! shares that pipe among its clients (`hub`): the daemon's WebSocket behind a per-container
//! secret on the published port (`proxy`), and `cdp-pipe` relays on a private Unix socket
//! (`socket`). It reaps every child, turns SIGTERM into a clean Chrome shutdown (CDP
//! `Browser.close` on the pipe; SIGTERM to Chrome at half the grace period, SIGKILL at its
//! end), and exits with Chrome's status.
//!
//! Std-only so the image's builder stage compiles it offline with Debian's rustc 1.63: no newer
//! std APIs. Logs one line per event to stderr: `[sidecar] <event> key=value…`, never the secret.
//!
//! Usage: `porthole-sidecar [-- <chromium args>…]`. Environment:
//! `PORTHOLE_SECRET` (required; URL-safe characters), `PORTHOLE_LISTEN` (default `0.0.0.0:9222`),
//! `PORTHOLE_CHROMIUM` (default `/usr/bin/chromium`), `PORTHOLE_STOP_GRACE_SECS` (default 8),
//! `PORTHOLE_CDP_SOCKET` (default `/tmp/porthole-cdp/cdp.sock`; `cdp-pipe` reads it too).

/// Logs one event line to stderr: `event!("name")` or `event!("name", "k={v} …")`.
macro_rules! event {
    ($name:literal) => {
        eprintln!(concat!("[sidecar] ", $name))
    };
    ($name:literal, $($fmt:tt)+) => {
        eprintln!("[sidecar] {} {}", $name, format_args!($($fmt)+))
    };
}

mod chrome;
mod digest;
mod http;
mod hub;
mod json;
mod pipe;
mod proxy;
mod socket;
mod sys;
mod ws;

#[cfg(test)]
mod arbitrary_bytes;

use std::net::{SocketAddr, TcpListener};
use std::os::unix::io::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

const USAGE: &str = "usage: porthole-sidecar [-- <chromium args>...]
       porthole-sidecar cdp-pipe   (in a running container: CDP on stdin/stdout, NUL-framed)
env: PORTHOLE_SECRET (required), PORTHOLE_LISTEN (0.0.0.0:9222),
     PORTHOLE_CHROMIUM (/usr/bin/chromium), PORTHOLE_STOP_GRACE_SECS (8),
     PORTHOLE_CDP_SOCKET (/tmp/porthole-cdp/cdp.sock)";

/// Everything the sidecar is told, from its arguments and environment.
#[derive(Debug, PartialEq, Eq)]
struct Config {
    secret: String,
    listen: SocketAddr,
    chromium: PathBuf,
    stop_grace: Duration,
    chrome_args: Vec<String>,
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Invocation {
    Run(Config),
    Help,
    Version,
    /// `cdp-pipe`: relay CDP between stdin/stdout and Chrome (see `pipe`).
    CdpPipe,
}

/// Reads the configuration from `args` (without argv[0]) and an environment lookup.
fn parse_config(
    args: &[String],
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Invocation, String> {
    let chrome_args = match args.first().map(String::as_str) {
        None => Vec::new(),
        Some("--") => args[1..].to_vec(),
        Some("-h") | Some("--help") => return Ok(Invocation::Help),
        Some("-V") | Some("--version") => return Ok(Invocation::Version),
        Some("cdp-pipe") => return Ok(Invocation::CdpPipe),
        Some(other) => {
            return Err(format!(
                "unexpected argument {other:?}: Chromium arguments go after `--`"
            ))
        }
    };
    let secret = env("PORTHOLE_SECRET").unwrap_or_default();
    if secret.is_empty() {
        return Err("PORTHOLE_SECRET is not set: the daemon passes a per-container secret".into());
    }
    if !http::valid_secret(&secret) {
        return Err("PORTHOLE_SECRET must be 1-256 characters of A-Z a-z 0-9 - . _ ~".into());
    }
    let listen = env("PORTHOLE_LISTEN").unwrap_or_else(|| "0.0.0.0:9222".into());
    let listen: SocketAddr = listen
        .parse()
        .map_err(|_| format!("PORTHOLE_LISTEN {listen:?} is not an address like 0.0.0.0:9222"))?;
    let stop_grace =
        match env("PORTHOLE_STOP_GRACE_SECS") {
            None => Duration::from_secs(8),
            Some(s) => Duration::from_secs(s.parse::<u64>().map_err(|_| {
                format!("PORTHOLE_STOP_GRACE_SECS {s:?} is not a number of seconds")
            })?),
        };
    let chromium =
        PathBuf::from(env("PORTHOLE_CHROMIUM").unwrap_or_else(|| "/usr/bin/chromium".into()));
    Ok(Invocation::Run(Config {
        secret,
        listen,
        chromium,
        stop_grace,
        chrome_args,
    }))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `cdp-pipe` is not PID 1: it keeps the default signal dispositions, so `docker exec`'s
    // and the engine's signals end it.
    if args.first().map(String::as_str) == Some("cdp-pipe") {
        std::process::exit(pipe::run(&socket::path_from_env(), Duration::from_secs(30)));
    }
    // Before any thread exists, so every thread inherits the mask (see `sys`).
    if let Err(e) = sys::block_signals() {
        event!("fatal", "error=\"cannot block signals: {e}\"");
        std::process::exit(1);
    }
    let config = match parse_config(&args, &|k| std::env::var(k).ok()) {
        Ok(Invocation::Run(config)) => config,
        Ok(Invocation::Help) => {
            println!("{USAGE}");
            return;
        }
        Ok(Invocation::Version) => {
            println!("porthole-sidecar {}", env!("CARGO_PKG_VERSION"));
            return;
        }
        Ok(Invocation::CdpPipe) => {
            unreachable!("cdp-pipe is dispatched before signals are blocked")
        }
        Err(message) => {
            event!("config_error", "error=\"{message}\"");
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    };
    std::process::exit(run(config));
}

/// Runs Chrome and the gate until Chrome exits; returns the process exit code.
fn run(config: Config) -> i32 {
    let started = Instant::now();
    let cmd = chrome::build_command(&config.chrome_args);
    for arg in &cmd.ignored {
        event!(
            "chrome_arg_ignored",
            "arg={arg:?} reason=cdp_only_on_the_pipe"
        );
    }
    let dir = &cmd.user_data_dir;
    if let Err(e) = std::fs::create_dir_all(dir) {
        event!(
            "fatal",
            "error=\"cannot create user-data dir {}: {e}\"",
            dir.display()
        );
        return 1;
    }
    match chrome::remove_stale_files(dir) {
        Ok(removed) => {
            for file in removed {
                event!("stale_file_removed", "file={file} dir={}", dir.display());
            }
        }
        Err(e) => {
            event!(
                "fatal",
                "error=\"cannot clean user-data dir {}: {e}\"",
                dir.display()
            );
            return 1;
        }
    }
    let listener = match TcpListener::bind(config.listen) {
        Ok(listener) => listener,
        Err(e) => {
            event!("fatal", "error=\"cannot listen on {}: {e}\"", config.listen);
            return 1;
        }
    };
    match listener.local_addr() {
        Ok(addr) => event!("listening", "addr={addr}"),
        Err(_) => event!("listening", "addr={}", config.listen),
    }

    // Chrome reads commands from `chrome_reads` (its fd 3) and writes to `chrome_writes` (fd 4).
    let pipes = sys::pipe().and_then(|(chrome_reads, to_chrome)| {
        sys::pipe().map(|(from_chrome, chrome_writes)| {
            (chrome_reads, to_chrome, from_chrome, chrome_writes)
        })
    });
    let (chrome_reads, to_chrome, from_chrome, chrome_writes) = match pipes {
        Ok(pipes) => pipes,
        Err(e) => {
            event!("fatal", "error=\"cannot make the CDP pipes: {e}\"");
            return 1;
        }
    };
    let mut command = Command::new(&config.chromium);
    command
        .args(&cmd.args)
        .env_remove("PORTHOLE_SECRET")
        .stdin(Stdio::null());
    sys::give_fds_3_and_4(
        &mut command,
        chrome_reads.as_raw_fd(),
        chrome_writes.as_raw_fd(),
    );
    let child = command.spawn();
    // Chrome's ends close here, so its exit reads as the end of its pipe.
    drop((chrome_reads, chrome_writes));
    let chrome_pid = match child {
        // Dropping the handle is deliberate: children are reaped by `sys::reap_all` below.
        Ok(child) => child.id(),
        Err(e) => {
            event!(
                "fatal",
                "error=\"cannot start {}: {e}\"",
                config.chromium.display()
            );
            return 127;
        }
    };
    event!(
        "chrome_started",
        "pid={chrome_pid} user_data_dir={} args={}",
        dir.display(),
        cmd.args.len()
    );

    let hub = Arc::new(hub::Hub::new(to_chrome, started));
    {
        let hub = Arc::clone(&hub);
        thread::Builder::new()
            .name("chrome-reader".into())
            .spawn(move || hub.read_from_chrome(from_chrome))
            .expect("spawn the pipe reader");
    }
    if let Err(e) = hub.probe() {
        event!("chrome_probe_failed", "error=\"{e}\"");
    }
    let socket_path = socket::path_from_env();
    match socket::bind(&socket_path) {
        Ok(listener) => {
            event!("cdp_socket", "path={}", socket_path.display());
            let hub = Arc::clone(&hub);
            thread::Builder::new()
                .name("cdp-socket".into())
                .spawn(move || socket::serve(listener, hub))
                .expect("spawn the socket thread");
        }
        // The gate still works; only `cdp-pipe` (the exec route) is without its socket.
        Err(e) => event!(
            "cdp_socket_failed",
            "path={} error=\"{e}\"",
            socket_path.display()
        ),
    }
    let gate = Arc::new(proxy::Gate::new(config.secret.clone(), Arc::clone(&hub)));
    thread::Builder::new()
        .name("gate".into())
        .spawn(move || proxy::serve(listener, gate))
        .expect("spawn the gate thread");
    supervise(chrome_pid, &hub, config.stop_grace, started)
}

/// The PID 1 loop: takes signals, reaps children, stops Chrome on request. Returns Chrome's
/// exit code (128 + signal when a signal ended it).
///
/// Shutdown, from the first SIGTERM/SIGINT: `Browser.close` over CDP at once (SIGTERM instead
/// if that cannot be sent), SIGTERM at half of `grace` if Chrome still runs, SIGKILL at `grace`
/// or on a second signal.
fn supervise(chrome_pid: u32, hub: &Arc<hub::Hub>, grace: Duration, started: Instant) -> i32 {
    let mut stop_at: Option<Instant> = None;
    let mut term_sent = false;
    let mut killed = false;
    loop {
        let timeout = match stop_at {
            Some(at) if !term_sent => (at + grace / 2).saturating_duration_since(Instant::now()),
            Some(at) if !killed => (at + grace).saturating_duration_since(Instant::now()),
            _ => Duration::from_secs(5),
        };
        let signal = match sys::wait_signal(timeout) {
            Ok(signal) => signal,
            Err(e) => {
                event!("signal_wait_failed", "error=\"{e}\"");
                thread::sleep(Duration::from_millis(100));
                None
            }
        };
        match signal {
            Some(sig @ sys::SIGTERM) | Some(sig @ sys::SIGINT) => {
                let name = if sig == sys::SIGTERM { "TERM" } else { "INT" };
                if stop_at.is_none() {
                    event!(
                        "shutdown_requested",
                        "signal={name} grace_ms={}",
                        grace.as_millis()
                    );
                    hub.stopping.store(true, Ordering::SeqCst);
                    stop_at = Some(Instant::now());
                    start_browser_close(chrome_pid, hub);
                } else if !killed {
                    kill_chrome(chrome_pid, sys::SIGKILL, "second_signal");
                    killed = true;
                }
            }
            _ => {}
        }
        if let Some(at) = stop_at {
            if !term_sent && at.elapsed() >= grace / 2 {
                kill_chrome(chrome_pid, sys::SIGTERM, "close_too_slow");
                term_sent = true;
            }
            if !killed && at.elapsed() >= grace {
                kill_chrome(chrome_pid, sys::SIGKILL, "grace_expired");
                killed = true;
            }
        }
        // Reap on every wake-up, not only on SIGCHLD: cheap, and never leaves a zombie behind.
        for (pid, raw) in sys::reap_all() {
            let status = ExitStatus::from_raw(raw);
            if pid as u32 == chrome_pid {
                let code = exit_code(status);
                let stop_ms = stop_at.map(|at| at.elapsed().as_millis().to_string());
                event!(
                    "chrome_exited",
                    "pid={pid} status={} exit_code={code} uptime_ms={} stop_ms={}",
                    describe(status),
                    started.elapsed().as_millis(),
                    stop_ms.as_deref().unwrap_or("-")
                );
                return code;
            }
            event!("orphan_reaped", "pid={pid} status={}", describe(status));
        }
    }
}

/// Asks Chrome to close cleanly (profile flushed) with `Browser.close` on its pipe; falls back
/// to SIGTERM when Chrome never answered or the pipe is gone.
fn start_browser_close(chrome_pid: u32, hub: &hub::Hub) {
    if !hub.chrome_answered() {
        kill_chrome(chrome_pid, sys::SIGTERM, "devtools_not_up");
        return;
    }
    match hub.browser_close() {
        Ok(()) => event!("chrome_close_sent", "pid={chrome_pid} method=Browser.close"),
        Err(e) => {
            event!("chrome_close_failed", "pid={chrome_pid} error=\"{e}\"");
            kill_chrome(chrome_pid, sys::SIGTERM, "browser_close_failed");
        }
    }
}

fn kill_chrome(pid: u32, sig: std::os::raw::c_int, reason: &str) {
    let name = if sig == sys::SIGKILL { "KILL" } else { "TERM" };
    event!(
        "chrome_signalled",
        "pid={pid} signal={name} reason={reason}"
    );
    if let Err(e) = sys::send_signal(pid, sig) {
        event!("signal_failed", "pid={pid} signal={name} error=\"{e}\"");
    }
}

/// The shell convention: the exit code, or 128 + the signal that ended the process.
fn exit_code(status: ExitStatus) -> i32 {
    match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(sig)) => 128 + sig,
        (None, None) => 1,
    }
}

fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited:{code}"),
        (None, Some(sig)) => format!("signal:{sig}"),
        (None, None) => "unknown".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn parse(args: &[&str], env: &[(&str, &str)]) -> Result<Invocation, String> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        parse_config(&args, &|k| env.get(k).cloned())
    }

    #[test]
    fn defaults_and_chrome_args_after_double_dash() {
        let got = parse(
            &["--", "--window-size=800,600", "--"],
            &[("PORTHOLE_SECRET", "s3cret")],
        );
        assert_eq!(
            got,
            Ok(Invocation::Run(Config {
                secret: "s3cret".into(),
                listen: "0.0.0.0:9222".parse().unwrap(),
                chromium: "/usr/bin/chromium".into(),
                stop_grace: Duration::from_secs(8),
                chrome_args: vec!["--window-size=800,600".into(), "--".into()],
            }))
        );
    }

    #[test]
    fn env_overrides() {
        let env = [
            ("PORTHOLE_SECRET", "abc"),
            ("PORTHOLE_LISTEN", "127.0.0.1:0"),
            ("PORTHOLE_CHROMIUM", "/opt/chrome"),
            ("PORTHOLE_STOP_GRACE_SECS", "2"),
        ];
        match parse(&[], &env) {
            Ok(Invocation::Run(c)) => {
                assert_eq!(c.listen, "127.0.0.1:0".parse().unwrap());
                assert_eq!(c.chromium, PathBuf::from("/opt/chrome"));
                assert_eq!(c.stop_grace, Duration::from_secs(2));
                assert!(c.chrome_args.is_empty());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn refuses_bad_configuration() {
        assert!(parse(&["--"], &[]).unwrap_err().contains("PORTHOLE_SECRET"));
        assert!(parse(&[], &[("PORTHOLE_SECRET", "a/b")]).is_err());
        assert!(parse(&["--window-size=1,1"], &[("PORTHOLE_SECRET", "s")])
            .unwrap_err()
            .contains("after `--`"));
        let s = ("PORTHOLE_SECRET", "s");
        assert!(parse(&[], &[s, ("PORTHOLE_LISTEN", "nope")]).is_err());
        assert!(parse(&[], &[s, ("PORTHOLE_STOP_GRACE_SECS", "soon")]).is_err());
    }

    #[test]
    fn help_and_version() {
        assert_eq!(parse(&["--help"], &[]), Ok(Invocation::Help));
        assert_eq!(parse(&["-V"], &[]), Ok(Invocation::Version));
    }

    #[test]
    fn exit_codes_follow_the_shell_convention() {
        assert_eq!(exit_code(ExitStatus::from_raw(0)), 0);
        assert_eq!(exit_code(ExitStatus::from_raw(3 << 8)), 3);
        assert_eq!(exit_code(ExitStatus::from_raw(9)), 137);
        assert_eq!(exit_code(ExitStatus::from_raw(15)), 143);
    }
}
