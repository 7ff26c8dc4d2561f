//! Test support: a tiny HTTP server that sets cookies, real browser processes with kill-on-drop
//! guards, the daemon's own DevTools client on them, and polling with a deadline (never a fixed
//! sleep). Chromium gets the daemon's own `BASE_FLAGS` as the `porthole-tests` launcher does
//! (this crate's unit tests cannot depend on that package: it depends on this one).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::cdp::{CdpConnection, CdpError};
use crate::providers::host::discovery::read_active_port;

/// Flags after the daemon's `BASE_FLAGS` for every Chromium started by these tests (root needs
/// `--no-sandbox`; every host name is this machine).
pub const CHROMIUM_EXTRA: &[&str] = &[
    "--no-sandbox",
    "--remote-debugging-port=0",
    "--host-resolver-rules=MAP * 127.0.0.1",
];

/// The daemon's base flags minus those `extra` names again, then ours, then `extra`.
pub fn chromium_flags(extra: &[&str]) -> Vec<String> {
    let name = |flag: &str| flag.split('=').next().unwrap_or(flag).to_owned();
    let named: Vec<String> = extra.iter().map(|f| name(f)).collect();
    crate::providers::local::BASE_FLAGS
        .iter()
        .filter(|f| !named.contains(&name(f)))
        .chain(CHROMIUM_EXTRA)
        .chain(extra)
        .map(|f| f.to_string())
        .collect()
}

/// How long a Chromium may take to write `DevToolsActivePort`: seconds alone, but the unit
/// tests start several at once beside a loaded build (30 s was seen to run out).
pub const CHROMIUM_START: Duration = Duration::from_secs(90);

/// Polls `probe` every 50 ms until it returns `Some`, failing the test after `limit`.
pub fn wait_for<T>(what: &str, limit: Duration, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = probe() {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {limit:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A response of the test server: `Set-Cookie` header values and an HTML body.
pub type Route = Box<dyn Fn(&str, &str) -> (Vec<String>, String) + Send + Sync>;

/// A one-thread HTTP/1.1 server on 127.0.0.1:0; stops when dropped.
pub struct CookieServer {
    pub port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl CookieServer {
    /// `route(path, host)` decides the cookies and body of each request.
    pub fn start(route: Route) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut conn) = conn else { continue };
                let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match conn.read(&mut chunk) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&buf).into_owned();
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                let host = head
                    .lines()
                    .find_map(|l| {
                        l.strip_prefix("Host: ")
                            .or_else(|| l.strip_prefix("host: "))
                    })
                    .unwrap_or("")
                    .trim()
                    .to_owned();
                let (cookies, body) = route(&path, &host);
                let mut resp = String::from(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n",
                );
                for c in cookies {
                    resp.push_str(&format!("Set-Cookie: {c}\r\n"));
                }
                resp.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
                let _ = conn.write_all(resp.as_bytes());
            }
        });
        CookieServer {
            port,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for CookieServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A browser process killed (and reaped) when dropped, so a failing test leaves none behind.
pub struct ChildGuard {
    pub child: Child,
    pub what: &'static str,
}

impl ChildGuard {
    pub fn spawn(what: &'static str, cmd: &mut Command) -> Self {
        Self::spawn_with_stderr(what, cmd, Stdio::null())
    }

    /// As [`ChildGuard::spawn`], with the process's stderr going to `stderr`.
    pub fn spawn_with_stderr(what: &'static str, cmd: &mut Command, stderr: Stdio) -> Self {
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| {
                panic!("starting {what}: {e} (run scripts/setup/cookie-browsers.sh)")
            });
        ChildGuard { child, what }
    }

    /// Waits (polling) for the process to exit by itself.
    pub fn wait_exit(&mut self, limit: Duration) {
        let what = self.what;
        wait_for(&format!("{what} to exit"), limit, || {
            self.child.try_wait().unwrap()
        });
    }

    /// Asks the process to terminate (SIGTERM), then waits for it.
    pub fn terminate(&mut self, limit: Duration) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        self.wait_exit(limit);
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Starts headless Chromium on `user_data_dir` opening `url`, with extra flags and env.
pub fn launch_chromium(
    user_data_dir: &Path,
    extra: &[&str],
    env: &[(&str, &str)],
    url: &str,
) -> ChildGuard {
    let mut cmd = Command::new("chromium");
    cmd.args(chromium_flags(extra))
        .arg(format!("--user-data-dir={}", user_data_dir.display()))
        .arg(url);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let log = std::fs::File::create(stderr_log(user_data_dir)).expect("creating the stderr log");
    ChildGuard::spawn_with_stderr("chromium", &mut cmd, log.into())
}

/// Where [`launch_chromium`] keeps the stderr of the Chromium on `user_data_dir`: beside it,
/// so a test that fails can print what the browser said.
fn stderr_log(user_data_dir: &Path) -> PathBuf {
    user_data_dir.with_file_name("chromium-stderr.log")
}

/// The last lines Chromium on `user_data_dir` wrote to stderr.
fn stderr_tail(user_data_dir: &Path) -> String {
    let text = std::fs::read_to_string(stderr_log(user_data_dir)).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

/// The daemon's DevTools client on the browser target.
pub struct Cdp(CdpConnection);

impl Cdp {
    /// Connects through `<user_data_dir>/DevToolsActivePort` (read by the daemon's own
    /// discovery), waiting for Chromium to write it, then for its cookie store to answer: a
    /// Chromium that has just started may hold cookie calls while it opens the store, and a
    /// first run after a quiet spell took longer than a call's 20 s.
    pub async fn connect(user_data_dir: &Path) -> Self {
        let url = wait_for("DevToolsActivePort", CHROMIUM_START, || {
            read_active_port(user_data_dir)
                .map(|(port, path)| format!("ws://127.0.0.1:{port}{path}"))
        });
        let connection = CdpConnection::connect(&url, Duration::from_secs(20))
            .await
            .expect("DevTools connect");
        let started = Instant::now();
        if let Err(e) = connection
            .call_with("Storage.getCookies", json!({}), None, CHROMIUM_START)
            .await
        {
            panic!(
                "the cookie store of a new Chromium never answered: {e:?}; its stderr ends:\n{}",
                stderr_tail(user_data_dir)
            );
        }
        let waited = started.elapsed();
        if waited > Duration::from_secs(5) {
            eprintln!("a new Chromium's cookie store answered after {waited:?}");
        }
        Cdp(connection)
    }

    /// Sends one command and waits (with a deadline) for its reply. The deadline is a
    /// browser start's: a young Chromium beside the suite's other browsers on two cores has
    /// held a cookie call for over 20 s.
    pub async fn call(&mut self, method: &str, params: Value) -> Result<Value, CdpError> {
        self.0.call_with(method, params, None, CHROMIUM_START).await
    }

    /// All cookies of the browser.
    pub async fn cookies(&mut self) -> Vec<Value> {
        let r = self
            .call("Storage.getCookies", json!({}))
            .await
            .expect("Storage.getCookies");
        r["cookies"].as_array().cloned().unwrap_or_default()
    }

    /// `Browser.close` (the reply may be lost as the browser goes away).
    pub async fn close_browser(mut self) {
        let _ = self.call("Browser.close", json!({})).await;
    }
}

/// Polls the browser's cookie jar until `names` are all there (as long as a browser start
/// may take: the page that sets them is the new browser's first load, which a full run on two
/// cores has held for over 30 s).
pub async fn wait_for_cookie_names(cdp: &mut Cdp, names: &[&str]) {
    let deadline = Instant::now() + CHROMIUM_START;
    loop {
        let have: Vec<String> = cdp
            .cookies()
            .await
            .iter()
            .filter_map(|c| c["name"].as_str().map(str::to_owned))
            .collect();
        if names.iter().all(|n| have.iter().any(|h| h == n)) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "cookies {names:?} never appeared; have {have:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The first `len` bytes of every `encrypted_value` of a closed Chromium `Cookies` file.
/// Read from a copy (with its journal, if Chromium's network service left one as the browser
/// exited): a read-only open of a database with a hot journal fails ("attempt to write a
/// readonly database"), as the copy the daemon reads never does.
pub fn encryption_tags(cookies_db: &Path) -> Vec<String> {
    let copy_dir = tempfile::tempdir().unwrap();
    let copy = copy_dir.path().join("Cookies");
    std::fs::copy(cookies_db, &copy).unwrap();
    for suffix in ["-journal", "-wal"] {
        let side = cookies_db.with_file_name(format!("Cookies{suffix}"));
        if side.exists() {
            let _ = std::fs::copy(&side, copy_dir.path().join(format!("Cookies{suffix}")));
        }
    }
    let conn = rusqlite::Connection::open(&copy).unwrap();
    let mut stmt = conn.prepare("SELECT encrypted_value FROM cookies").unwrap();
    let tags = stmt
        .query_map([], |r| r.get::<_, Vec<u8>>(0))
        .unwrap()
        .map(|v| String::from_utf8_lossy(&v.unwrap()[..3]).into_owned())
        .collect();
    tags
}

/// A temp home with a Chromium user-data dir at the Linux standard place.
pub fn chromium_home() -> (tempfile::TempDir, PathBuf) {
    let home = tempfile::Builder::new()
        .prefix("porthole-cookie-test-")
        .tempdir()
        .unwrap();
    let ud = home.path().join(".config").join("chromium");
    std::fs::create_dir_all(&ud).unwrap();
    (home, ud)
}

/// Finds a cookie by name in CDP JSON.
pub fn by_name<'a>(cookies: &'a [Value], name: &str) -> &'a Value {
    cookies
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no cookie {name}"))
}
