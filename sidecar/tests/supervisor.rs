//! Black-box tests of the sidecar binary with a fake Chromium (a shell script that hands its
//! `--remote-debugging-pipe` fds 3 and 4 to the test through two FIFOs, so the test plays
//! Chrome): the gate's answers, CDP over the gate's own WebSocket and over the `cdp-pipe`
//! socket relay with ids rewritten and replies routed back, stale-lock cleanup, the clean
//! `Browser.close` shutdown on the pipe, the SIGKILL fallback, and the exit status. The
//! real-Chromium checks live in the Docker-mode tests.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::sync::Once;
use std::thread;
use std::time::{Duration, Instant};

const SECRET: &str = "test-secret";
const WAIT: Duration = Duration::from_secs(10);

/// Writes a fake Chromium; `body` runs after it has found `$dir` (the user-data dir) and
/// written its arguments to `$dir/args`.
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
echo "$*" > "$dir/args"
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
    // Hands its CDP pipe to the test (`PipeChrome`); exits 0 once the test got Browser.close.
    (
        "polite",
        r#"cat <&3 4>&- > "$dir/to-chrome" &
cat "$dir/from-chrome" 3<&- >&4 &
i=0
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
    fn start(chromium: &Path, profile: &Path, grace_secs: u32) -> Sidecar {
        let mut child = Command::new(env!("CARGO_BIN_EXE_porthole-sidecar"))
            .arg("--")
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("--window-size=800,600")
            .env("PORTHOLE_SECRET", SECRET)
            .env("PORTHOLE_LISTEN", "127.0.0.1:0")
            .env("PORTHOLE_CHROMIUM", chromium)
            .env("PORTHOLE_STOP_GRACE_SECS", grace_secs.to_string())
            .env("PORTHOLE_CDP_SOCKET", socket_path(profile))
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
    for fifo in ["to-chrome", "from-chrome"] {
        let made = Command::new("mkfifo").arg(dir.join(fifo)).status().unwrap();
        assert!(made.success());
    }
    dir
}

fn socket_path(profile: &Path) -> PathBuf {
    profile.join("sock").join("cdp.sock")
}

/// The test's side of the fake Chromium's CDP pipe: commands the sidecar sent, and a writer
/// for Chrome's replies and events (each message and a NUL, as Chrome frames them).
struct PipeChrome {
    commands: Receiver<String>,
    replies: fs::File,
}

impl PipeChrome {
    /// Opens the two FIFOs of a running "polite" fake (made by [`profile_dir`]).
    fn attach(profile: &Path) -> PipeChrome {
        let to_chrome = profile.join("to-chrome");
        let (tx, commands) = channel();
        thread::spawn(move || {
            let reader = BufReader::new(fs::File::open(to_chrome).unwrap());
            for message in reader.split(0) {
                let sent = message
                    .map(|m| tx.send(String::from_utf8(m).unwrap()).is_ok())
                    .unwrap_or(false);
                if !sent {
                    return;
                }
            }
        });
        let replies = fs::OpenOptions::new()
            .write(true)
            .open(profile.join("from-chrome"))
            .unwrap();
        PipeChrome { commands, replies }
    }

    /// The next command, which must name `method`, and its id on the pipe.
    fn command(&self, method: &str) -> (String, u64) {
        let command = self
            .commands
            .recv_timeout(WAIT)
            .expect("a command on the pipe");
        assert!(
            command.contains(&format!("\"method\":\"{method}\"")),
            "{command}"
        );
        let id = command
            .split("\"id\":")
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no id in {command}"));
        (command, id)
    }

    fn send(&mut self, message: &str) {
        self.replies.write_all(message.as_bytes()).unwrap();
        self.replies.write_all(&[0]).unwrap();
    }
}

/// A minimal WebSocket client of the gate.
struct WsClient {
    stream: TcpStream,
}

impl WsClient {
    fn connect(port: u16, path: &str) -> WsClient {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(WAIT)).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: localhost:1\r\nOrigin: http://x\r\n\
             Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        )
        .unwrap();
        let head = read_head(&mut stream).expect("an answer");
        assert!(head.starts_with("HTTP/1.1 101 "), "{head}");
        // RFC 6455's example key and its answer.
        assert!(
            head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"),
            "{head}"
        );
        WsClient { stream }
    }

    fn send_frame(&mut self, opcode: u8, payload: &[u8]) {
        let mask = [0x11, 0x22, 0x33, 0x44];
        let mut frame = vec![0x80 | opcode];
        if payload.len() < 126 {
            frame.push(0x80 | payload.len() as u8);
        } else {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(payload.len() as u16).to_be_bytes());
        }
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.stream.write_all(&frame).unwrap();
    }

    fn send(&mut self, text: &str) {
        self.send_frame(0x1, text.as_bytes());
    }

    /// The next frame: (opcode, payload).
    fn frame(&mut self) -> (u8, Vec<u8>) {
        let mut head = [0u8; 2];
        self.stream.read_exact(&mut head).unwrap();
        assert_eq!(head[1] & 0x80, 0, "a server frame is not masked");
        let len = match head[1] & 0x7f {
            126 => {
                let mut b = [0u8; 2];
                self.stream.read_exact(&mut b).unwrap();
                u16::from_be_bytes(b) as usize
            }
            127 => {
                let mut b = [0u8; 8];
                self.stream.read_exact(&mut b).unwrap();
                u64::from_be_bytes(b) as usize
            }
            n => n as usize,
        };
        let mut payload = vec![0u8; len];
        self.stream.read_exact(&mut payload).unwrap();
        (head[0] & 0x0f, payload)
    }

    fn text(&mut self) -> String {
        let (opcode, payload) = self.frame();
        assert_eq!(opcode, 0x1);
        String::from_utf8(payload).unwrap()
    }
}

/// `porthole-sidecar cdp-pipe` against the sidecar's socket: NUL-framed CDP on its stdio.
struct Relay {
    child: Child,
    out: Receiver<String>,
}

impl Relay {
    fn start(profile: &Path) -> Relay {
        let mut child = Command::new(env!("CARGO_BIN_EXE_porthole-sidecar"))
            .arg("cdp-pipe")
            .env("PORTHOLE_CDP_SOCKET", socket_path(profile))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, out) = channel();
        thread::spawn(move || {
            for message in BufReader::new(stdout).split(0) {
                let sent = message
                    .map(|m| tx.send(String::from_utf8(m).unwrap()).is_ok())
                    .unwrap_or(false);
                if !sent {
                    return;
                }
            }
        });
        Relay { child, out }
    }

    fn send(&mut self, text: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.write_all(&[0]).unwrap();
        stdin.flush().unwrap();
    }

    fn next(&self) -> String {
        self.out
            .recv_timeout(WAIT)
            .expect("a message from the relay")
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads a response head byte by byte (so nothing after it is consumed); `None` on EOF first.
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

#[test]
fn serves_cdp_from_the_pipe_to_every_client_and_closes_chrome_cleanly() {
    let chromium = fake_chromium("polite", SCRIPTS[0].1);
    let profile = profile_dir("polite");
    std::os::unix::fs::symlink("old-container-7", profile.join("SingletonLock")).unwrap();
    let mut sidecar = Sidecar::start(&chromium, &profile, 8);
    sidecar.wait_for("stale_file_removed file=SingletonLock");
    let mut chrome = PipeChrome::attach(&profile);

    // Not ready until Chrome answers the sidecar's first call on the pipe.
    assert_eq!(
        sidecar.get("/test-secret/ready"),
        "HTTP/1.1 503 Service Unavailable"
    );
    let (_, probe) = chrome.command("Browser.getVersion");
    chrome.send(&format!(
        r#"{{"id":{probe},"result":{{"product":"Fake"}}}}"#
    ));
    sidecar.wait_for("chrome_ready transport=pipe");

    let args = fs::read_to_string(profile.join("args")).unwrap();
    assert!(args.contains("--headless=new") && args.contains("--remote-debugging-pipe"));
    assert!(!args.contains("--remote-debugging-port"), "{args}");
    assert!(args.ends_with("--window-size=800,600\n"), "{args}");

    assert_eq!(sidecar.get("/wrong/ready"), "HTTP/1.1 403 Forbidden");
    assert_eq!(
        sidecar.get("/test-secret/nothing"),
        "HTTP/1.1 404 Not Found"
    );
    assert_eq!(
        sidecar.get("/test-secret/devtools/browser"),
        "HTTP/1.1 400 Bad Request"
    );
    assert_eq!(sidecar.get("/test-secret/ready"), "HTTP/1.1 200 OK");

    // Two clients at once, the gate's WebSocket and the cdp-pipe relay on the Unix socket,
    // both using id 1: Chrome sees two ids, each client gets its own reply back.
    let mut ws = WsClient::connect(sidecar.port, &format!("/{SECRET}/devtools/browser"));
    let mut relay = Relay::start(&profile);
    // The relay's own probe comes first; its answer is not passed on.
    let (_, probe) = chrome.command("Browser.getVersion");
    chrome.send(&format!(
        r#"{{"id":{probe},"result":{{"product":"Fake"}}}}"#
    ));
    ws.send(r#"{"id":1,"method":"Target.getTargets"}"#);
    let (_, ws_call) = chrome.command("Target.getTargets");
    relay.send(r#"{"id":1,"method":"Browser.getVersion"}"#);
    let (_, relay_call) = chrome.command("Browser.getVersion");
    assert_ne!(ws_call, relay_call);
    chrome.send(&format!(
        r#"{{"id":{relay_call},"result":{{"product":"Fake"}}}}"#
    ));
    chrome.send(&format!(
        r#"{{"id":{ws_call},"result":{{"targetInfos":[]}}}}"#
    ));
    assert_eq!(ws.text(), r#"{"id":1,"result":{"targetInfos":[]}}"#);
    assert_eq!(relay.next(), r#"{"id":1,"result":{"product":"Fake"}}"#);
    // A browser-level event reaches both.
    chrome.send(r#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"T"}}}"#);
    assert!(ws.text().contains("targetCreated"));
    assert!(relay.next().contains("targetCreated"));

    // The socket is the container user's alone.
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&socket_path(&profile)), 0o600);
    assert_eq!(mode(socket_path(&profile).parent().unwrap()), 0o700);

    // A ping is answered; a close is answered with a close.
    ws.send_frame(0x9, b"hi");
    assert_eq!(ws.frame(), (0xA, b"hi".to_vec()));
    ws.send_frame(0x8, &1000u16.to_be_bytes());
    assert_eq!(ws.frame().0, 0x8);
    sidecar.wait_for("cdp_closed peer=127.0.0.1");
    drop(relay);
    sidecar.wait_for("cdp_closed peer=unix");

    // SIGTERM: the sidecar sends Browser.close on the pipe; the fake Chrome then exits 0.
    sidecar.signal("TERM");
    chrome.command("Browser.close");
    fs::write(profile.join("close-requested"), "").unwrap();
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
    // It never answers on its pipe, so Browser.close is not tried; SIGTERM is ignored.
    let mut sidecar = Sidecar::start(&chromium, &profile, 1);
    sidecar.wait_for("chrome_started");
    let started = Instant::now();
    sidecar.signal("TERM");
    assert_eq!(sidecar.wait_exit(), 137);
    assert!(started.elapsed() < Duration::from_secs(5));
    sidecar.wait_for("reason=grace_expired");
    sidecar.wait_for("reason=devtools_not_up");
    let _ = fs::remove_dir_all(&profile);
}

#[test]
fn exits_with_chromes_status() {
    let chromium = fake_chromium("crashing", SCRIPTS[2].1);
    let profile = profile_dir("crashing");
    let mut sidecar = Sidecar::start(&chromium, &profile, 8);
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
