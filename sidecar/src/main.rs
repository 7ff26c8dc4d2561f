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
mod config;
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

use std::net::TcpListener;
use std::os::unix::io::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use config::{parse_config, Config, Invocation};

const USAGE: &str = "usage: porthole-sidecar [-- <chromium args>...]
       porthole-sidecar cdp-pipe   (in a running container: CDP on stdin/stdout, NUL-framed)
env: PORTHOLE_SECRET (required), PORTHOLE_LISTEN (0.0.0.0:9222),
     PORTHOLE_CHROMIUM (/usr/bin/chromium), PORTHOLE_STOP_GRACE_SECS (8),
     PORTHOLE_CDP_SOCKET (/tmp/porthole-cdp/cdp.sock)";

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
        Err(error) => {
            event!("config_error", "error=\"{error}\"");
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    };
    std::process::exit(run(config));
}

/// Runs Chrome and the gate until Chrome exits; returns the process exit code.
fn run(config: Config) -> i32 {
    let started = Instant::now();
    match start(&config, started) {
        Ok((chrome_pid, hub)) => supervise(chrome_pid, &hub, config.stop_grace, started),
        Err(fatal) => {
            event!("fatal", "error=\"{}\"", fatal.message);
            fatal.code
        }
    }
}

/// A start step that failed: logged as `fatal`, and the sidecar exits with `code`.
struct Fatal {
    message: String,
    code: i32,
}

impl Fatal {
    fn new(code: i32, message: String) -> Self {
        Fatal { message, code }
    }
}

/// Everything before the PID 1 loop: the profile, the gate's listener, Chrome on its pipe, the
/// hub and its clients. Returns Chrome's pid and the hub.
fn start(config: &Config, started: Instant) -> Result<(u32, Arc<hub::Hub>), Fatal> {
    let cmd = chrome::build_command(&config.chrome_args);
    for arg in &cmd.ignored {
        event!(
            "chrome_arg_ignored",
            "arg={arg:?} reason=cdp_only_on_the_pipe"
        );
    }
    prepare_user_data_dir(&cmd.user_data_dir)?;
    let listener = TcpListener::bind(config.listen)
        .map_err(|e| Fatal::new(1, format!("cannot listen on {}: {e}", config.listen)))?;
    match listener.local_addr() {
        Ok(addr) => event!("listening", "addr={addr}"),
        Err(_) => event!("listening", "addr={}", config.listen),
    }
    let (chrome_pid, hub) = spawn_chrome(config, &cmd, started)?;
    serve_cdp_socket(&hub);
    let gate = Arc::new(proxy::Gate::new(config.secret.clone(), Arc::clone(&hub)));
    thread::Builder::new()
        .name("gate".into())
        .spawn(move || proxy::serve(listener, gate))
        .expect("spawn the gate thread");
    Ok((chrome_pid, hub))
}

/// Creates the user-data dir and removes the lock files a killed Chrome left in it.
fn prepare_user_data_dir(dir: &Path) -> Result<(), Fatal> {
    std::fs::create_dir_all(dir).map_err(|e| {
        Fatal::new(
            1,
            format!("cannot create user-data dir {}: {e}", dir.display()),
        )
    })?;
    let removed = chrome::remove_stale_files(dir).map_err(|e| {
        Fatal::new(
            1,
            format!("cannot clean user-data dir {}: {e}", dir.display()),
        )
    })?;
    for file in removed {
        event!("stale_file_removed", "file={file} dir={}", dir.display());
    }
    Ok(())
}

/// Starts Chromium with CDP on its fds 3 and 4, and the hub reading what it writes.
fn spawn_chrome(
    config: &Config,
    cmd: &chrome::ChromeCommand,
    started: Instant,
) -> Result<(u32, Arc<hub::Hub>), Fatal> {
    // Chrome reads commands from `chrome_reads` (its fd 3) and writes to `chrome_writes` (fd 4).
    let pipes = sys::pipe().and_then(|(chrome_reads, to_chrome)| {
        sys::pipe().map(|(from_chrome, chrome_writes)| {
            (chrome_reads, to_chrome, from_chrome, chrome_writes)
        })
    });
    let (chrome_reads, to_chrome, from_chrome, chrome_writes) =
        pipes.map_err(|e| Fatal::new(1, format!("cannot make the CDP pipes: {e}")))?;
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
    // Dropping the handle is deliberate: children are reaped by `sys::reap_all` below.
    let chrome_pid = child
        .map_err(|e| {
            Fatal::new(
                127,
                format!("cannot start {}: {e}", config.chromium.display()),
            )
        })?
        .id();
    event!(
        "chrome_started",
        "pid={chrome_pid} user_data_dir={} args={}",
        cmd.user_data_dir.display(),
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
    Ok((chrome_pid, hub))
}

/// Serves `cdp-pipe` relays on the private Unix socket; without it the gate still works.
fn serve_cdp_socket(hub: &Arc<hub::Hub>) {
    let socket_path = socket::path_from_env();
    match socket::bind(&socket_path) {
        Ok(listener) => {
            event!("cdp_socket", "path={}", socket_path.display());
            let hub = Arc::clone(hub);
            thread::Builder::new()
                .name("cdp-socket".into())
                .spawn(move || socket::serve(listener, hub))
                .expect("spawn the socket thread");
        }
        // Only `cdp-pipe` (the exec route) is without its socket.
        Err(e) => event!(
            "cdp_socket_failed",
            "path={} error=\"{e}\"",
            socket_path.display()
        ),
    }
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

    #[test]
    fn exit_codes_follow_the_shell_convention() {
        assert_eq!(exit_code(ExitStatus::from_raw(0)), 0);
        assert_eq!(exit_code(ExitStatus::from_raw(3 << 8)), 3);
        assert_eq!(exit_code(ExitStatus::from_raw(9)), 137);
        assert_eq!(exit_code(ExitStatus::from_raw(15)), 143);
    }
}
