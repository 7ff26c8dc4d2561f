//! Black-box tests of the sidecar binary with a fake Chromium (a shell script) and a fake
//! DevTools endpoint (a listener in the test): the gate's answers, the rewritten request Chrome
//! sees, stale-lock cleanup, the clean `Browser.close` shutdown, the SIGKILL fallback, and the
//! exit status. The real-Chromium checks live in the Docker-mode tests.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::sync::Once;
use std::thread;
use std::time::{Duration, Instant};

const SECRET: &str = "test-secret";
const WAIT: Duration = Duration::from_secs(10);

/// Writes a fake Chromium; `body` runs after it has found `$dir` (the user-data dir) and written
/// `DevToolsActivePort` with `$FAKE_DEVTOOLS_PORT`.
fn fake_chromium(name: &str, body: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("porthole-sidecar-it-{}", std::process::id()));
    let path = dir.join(name);
    // All scripts are written before any test spawns a process: a script still open for
    // writing in this process while another thread forks would fail to exec (ETXTBSY).
    static WRITE_ALL: Once = Once::new();
    WRITE_ALL.call_once(|| {
        fs::create_dir_all(&dir).unwrap();
        let head = r#"#!/bin/sh
for a in "$@"; do case "$a" in --user-data-dir=*) dir="${a#--user-data-dir=}";; esac; done
printf '%s\n/devtools/browser/fake-id\n' "$FAKE_DEVTOOLS_PORT" > "$dir/DevToolsActivePort"
"#;
        for (name, body) in SCRIPTS {
            let file = dir.join(name);
            fs::write(&file, format!("{head}{body}\n")).unwrap();
            Command::new("chmod")
                .arg("755")
                .arg(&file)
                .status()
                .unwrap();
        }
    });
    assert!(SCRIPTS.iter().any(|(n, b)| *n == name && *b == body));
    path
}

const SCRIPTS: &[(&str, &str)] = &[
    // Exits 0 once the test's fake DevTools received Browser.close.
    (
        "polite",
        r#"echo "$*" > "$dir/args"; i=0
while [ ! -e "$dir/close-requested" ] && [ $i -lt 1000 ]; do sleep 0.02; i=$((i+1)); done; exit 0"#,
    ),
    // Ignores SIGTERM: only SIGKILL ends it. (Loops are bounded so a failed test leaks nothing
    // for long: the sidecar's SIGKILL does not reach the script's own children.)
    ("stubborn", r#"trap '' TERM; sleep 20"#),
    // Crashes on its own.
    ("crashing", "sleep 0.2; exit 3"),
];

struct Sidecar {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
    port: u16,
}

impl Sidecar {
    fn start(chromium: &Path, profile: &Path, devtools_port: u16, grace_secs: u32) -> Sidecar {
        let mut child = Command::new(env!("CARGO_BIN_EXE_porthole-sidecar"))
            .arg("--")
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("--window-size=800,600")
            .env("PORTHOLE_SECRET", SECRET)
            .env("PORTHOLE_LISTEN", "127.0.0.1:0")
            .env("PORTHOLE_CHROMIUM", chromium)
            .env("PORTHOLE_STOP_GRACE_SECS", grace_secs.to_string())
            .env("FAKE_DEVTOOLS_PORT", devtools_port.to_string())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the sidecar");
        let (tx, lines) = channel();
        let stderr = child.stderr.take().unwrap();
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                match line {
                    Ok(line) if tx.send(line.clone()).is_ok() => {}
                    _ => break,
                }
            }
        });
        let mut sidecar = Sidecar {
            child,
            lines,
            seen: Vec::new(),
            port: 0,
        };
        let listening = sidecar.wait_for("listening ");
        sidecar.port = listening.rsplit(':').next().unwrap().parse().unwrap();
        sidecar
    }

    /// Waits for a stderr line containing `needle` and returns it.
    fn wait_for(&mut self, needle: &str) -> String {
        if let Some(line) = self.seen.iter().find(|l| l.contains(needle)) {
            return line.clone();
        }
        let deadline = Instant::now() + WAIT;
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            self.seen.push(line.clone());
            if line.contains(needle) {
                return line;
            }
        }
        panic!("no line with {needle:?}; saw {:#?}", self.seen);
    }

    fn signal(&self, sig: &str) {
        // The shell's builtin `kill`: minimal images have no kill binary.
        let ok = Command::new("sh")
            .arg("-c")
            .arg(format!("kill -{sig} {}", self.child.id()))
            .status()
            .unwrap()
            .success();
        assert!(ok);
    }

    fn wait_exit(&mut self) -> i32 {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().expect("the sidecar exits, not killed");
            }
            assert!(Instant::now() < deadline, "sidecar did not exit");
            thread::sleep(Duration::from_millis(20));
        }
    }

    fn get(&self, path: &str) -> String {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(WAIT)).unwrap();
        write!(s, "GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out.lines().next().unwrap_or_default().to_string()
    }
}

impl Drop for Sidecar {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn profile_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("porthole-sidecar-it-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Reads a request head byte by byte (so nothing after it is consumed); `None` on EOF first.
fn read_head(s: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        if s.read(&mut byte).ok()? == 0 {
            return None;
        }
        buf.push(byte[0]);
    }
    Some(String::from_utf8(buf).unwrap())
}

/// A fake DevTools endpoint: readiness probes (connect, then close) are absorbed; every
/// connection that sends a request head is handed to the test with that head.
fn fake_devtools() -> (u16, Receiver<(String, TcpStream)>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = channel();
    thread::spawn(move || {
        for conn in listener.incoming() {
            let mut s = match conn {
                Ok(s) => s,
                Err(_) => break,
            };
            s.set_read_timeout(Some(WAIT)).unwrap();
            if let Some(head) = read_head(&mut s) {
                if tx.send((head, s)).is_err() {
                    break;
                }
            }
        }
    });
    (port, rx)
}

#[test]
fn gates_forwards_and_closes_chrome_cleanly() {
    let chromium = fake_chromium("polite", SCRIPTS[0].1);
    let profile = profile_dir("polite");
    std::os::unix::fs::symlink("old-container-7", profile.join("SingletonLock")).unwrap();
    let (devtools_port, devtools) = fake_devtools();
    let mut sidecar = Sidecar::start(&chromium, &profile, devtools_port, 8);
    sidecar.wait_for("stale_file_removed file=SingletonLock");
    sidecar.wait_for("chrome_ready");

    let args = fs::read_to_string(profile.join("args")).unwrap();
    assert!(args.contains("--headless=new") && args.contains("--remote-debugging-port=0"));
    assert!(args.ends_with("--window-size=800,600\n"), "{args}");

    assert_eq!(sidecar.get("/wrong/ready"), "HTTP/1.1 403 Forbidden");
    assert_eq!(
        sidecar.get("/test-secret/nothing"),
        "HTTP/1.1 404 Not Found"
    );
    assert_eq!(sidecar.get("/test-secret/ready"), "HTTP/1.1 200 OK");

    // A WebSocket upgrade is rewritten and spliced through, with the bytes sent after the head.
    let mut client = TcpStream::connect(("127.0.0.1", sidecar.port)).unwrap();
    client.set_read_timeout(Some(WAIT)).unwrap();
    write!(
        client,
        "GET /{SECRET}/devtools/browser HTTP/1.1\r\nHost: localhost:1\r\nOrigin: http://x\r\n\
         Upgrade: websocket\r\nConnection: Upgrade\r\n\r\nearly"
    )
    .unwrap();
    let (head, mut chrome) = devtools.recv_timeout(WAIT).unwrap();
    assert_eq!(
        head,
        format!(
            "GET /devtools/browser/fake-id HTTP/1.1\r\nHost: 127.0.0.1:{devtools_port}\r\n\
             Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
        )
    );
    let mut early = [0u8; 5];
    chrome.read_exact(&mut early).unwrap();
    assert_eq!(&early, b"early");
    chrome
        .write_all(b"HTTP/1.1 101 Switching Protocols\r\n\r\npong")
        .unwrap();
    let mut reply = [0u8; 40];
    client.read_exact(&mut reply).unwrap();
    assert_eq!(&reply[..], b"HTTP/1.1 101 Switching Protocols\r\n\r\npong");
    // Chrome hanging up ends the client's connection too.
    drop(chrome);
    let mut rest = Vec::new();
    client.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty());
    sidecar.wait_for("cdp_closed");

    // SIGTERM: the sidecar sends Browser.close over DevTools; the fake Chrome then exits 0.
    sidecar.signal("TERM");
    let (head, mut conn) = devtools.recv_timeout(WAIT).unwrap();
    assert!(
        head.starts_with("GET /devtools/browser/fake-id HTTP/1.1\r\n"),
        "{head}"
    );
    assert!(!head.to_ascii_lowercase().contains("origin"));
    conn.write_all(b"HTTP/1.1 101 Switching Protocols\r\n\r\n")
        .unwrap();
    let mut frame = [0u8; 2 + 4 + 33];
    conn.read_exact(&mut frame).unwrap();
    assert_eq!(&frame[..2], &[0x81, 0x80 | 33]);
    let mask = [frame[2], frame[3], frame[4], frame[5]];
    let payload: Vec<u8> = frame[6..]
        .iter()
        .enumerate()
        .map(|(i, b)| b ^ mask[i % 4])
        .collect();
    assert_eq!(payload, br#"{"id":1,"method":"Browser.close"}"#);
    fs::write(profile.join("close-requested"), "").unwrap();
    drop(conn);
    assert_eq!(sidecar.wait_exit(), 0);
    sidecar.wait_for("chrome_close_sent");
    let exited = sidecar.wait_for("chrome_exited");
    assert!(exited.contains("exit_code=0"), "{exited}");
    assert!(!sidecar.seen.iter().any(|l| l.contains(SECRET)));
    let _ = fs::remove_dir_all(&profile);
}

#[test]
fn kills_a_chrome_that_ignores_shutdown() {
    let chromium = fake_chromium("stubborn", SCRIPTS[1].1);
    let profile = profile_dir("stubborn");
    // Nothing listens on the DevTools port: Browser.close fails, SIGTERM is ignored.
    let unused = TcpListener::bind("127.0.0.1:0").unwrap();
    let dead_port = unused.local_addr().unwrap().port();
    drop(unused);
    let mut sidecar = Sidecar::start(&chromium, &profile, dead_port, 1);
    sidecar.wait_for("chrome_started");
    let started = Instant::now();
    sidecar.signal("TERM");
    assert_eq!(sidecar.wait_exit(), 137);
    assert!(started.elapsed() < Duration::from_secs(5));
    sidecar.wait_for("chrome_close_failed");
    sidecar.wait_for("reason=grace_expired");
    let _ = fs::remove_dir_all(&profile);
}

#[test]
fn exits_with_chromes_status() {
    let chromium = fake_chromium("crashing", SCRIPTS[2].1);
    let profile = profile_dir("crashing");
    let mut sidecar = Sidecar::start(&chromium, &profile, 9, 8);
    assert_eq!(sidecar.wait_exit(), 3);
    let exited = sidecar.wait_for("chrome_exited");
    assert!(exited.contains("status=exited:3"), "{exited}");
    let _ = fs::remove_dir_all(&profile);
}

#[test]
fn refuses_to_start_without_a_secret() {
    let out = Command::new(env!("CARGO_BIN_EXE_porthole-sidecar"))
        .arg("--")
        .env_remove("PORTHOLE_SECRET")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("[sidecar] config_error"), "{stderr}");
}
