//! Chromium's command line and its user-data dir: the flags the sidecar always passes, the
//! caller's extra arguments, the stale files a killed container leaves behind, and the
//! `DevToolsActivePort` file Chrome writes once DevTools listens.
//!
//! Starting and signalling the process is `main`'s job; this module only computes and cleans.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Flags passed before the caller's arguments on every start.
pub const BASE_FLAGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    "--remote-debugging-address=127.0.0.1",
    // Port 0: Chrome picks a free loopback port and, only in that case, writes it and the
    // browser id to `<user-data-dir>/DevToolsActivePort` (verified on Chromium 150 and 156: a
    // fixed port writes no file). The gate reads that file.
    "--remote-debugging-port=0",
];

/// A caller argument (never passed to Chrome) that turns Chromium's own sandbox on: the
/// daemon passes it only when the container runs under a seccomp profile that lets the
/// sandbox make its namespaces; without it, `--no-sandbox` stays.
pub const SANDBOX_ARG: &str = "--porthole-chromium-sandbox";

/// The throwaway profile used when the caller passes no `--user-data-dir`.
pub const DEFAULT_USER_DATA_DIR: &str = "/tmp/porthole-profile";

/// Files in the user-data dir that a killed Chrome leaves behind and that must go before the
/// next start: the `Singleton*` symlinks name the old container's hostname and pid (Chrome
/// refuses to start on them), and an old `DevToolsActivePort` would make the gate report ready
/// and forward to a browser id that no longer exists.
pub const STALE_FILES: &[&str] = &[
    "SingletonLock",
    "SingletonSocket",
    "SingletonCookie",
    "DevToolsActivePort",
];

/// The command line for Chrome, with what was decided on the way.
#[derive(Debug, PartialEq, Eq)]
pub struct ChromeCommand {
    pub args: Vec<String>,
    pub user_data_dir: PathBuf,
    /// Caller arguments dropped because they would expose or move the DevTools endpoint.
    pub ignored: Vec<String>,
}

/// Builds Chrome's arguments: [`BASE_FLAGS`], exactly one
/// `--user-data-dir` (the caller's last one, else [`DEFAULT_USER_DATA_DIR`]), then the caller's
/// other arguments in order. `--remote-debugging-*` and `--remote-allow-origins` from the caller
/// are dropped: DevTools must stay on loopback behind the gate. [`SANDBOX_ARG`] drops
/// `--no-sandbox` from the base flags.
pub fn build_command(extra: &[String]) -> ChromeCommand {
    let mut user_data_dir = PathBuf::from(DEFAULT_USER_DATA_DIR);
    let mut passed = Vec::new();
    let mut ignored = Vec::new();
    let mut sandbox = false;
    for arg in extra {
        if arg == SANDBOX_ARG {
            sandbox = true;
        } else if let Some(dir) = arg.strip_prefix("--user-data-dir=") {
            if !dir.is_empty() {
                user_data_dir = PathBuf::from(dir);
            }
        } else if arg.starts_with("--remote-debugging-")
            || arg.starts_with("--remote-allow-origins")
        {
            ignored.push(arg.clone());
        } else {
            passed.push(arg.clone());
        }
    }
    let mut args: Vec<String> = BASE_FLAGS
        .iter()
        .filter(|flag| !(sandbox && **flag == "--no-sandbox"))
        .map(|s| s.to_string())
        .collect();
    args.push(format!("--user-data-dir={}", user_data_dir.display()));
    args.extend(passed);
    ChromeCommand {
        args,
        user_data_dir,
        ignored,
    }
}

/// Removes the [`STALE_FILES`] from `dir` and returns the names it removed. The `Singleton*`
/// entries are dangling symlinks, so they are removed without following them.
pub fn remove_stale_files(dir: &Path) -> io::Result<Vec<&'static str>> {
    let mut removed = Vec::new();
    for name in STALE_FILES {
        match fs::remove_file(dir.join(name)) {
            Ok(()) => removed.push(*name),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(removed)
}

/// Chrome's live DevTools endpoint as written to `<user-data-dir>/DevToolsActivePort`.
#[derive(Debug, PartialEq, Eq, Clone)]
pub struct ActivePort {
    pub port: u16,
    /// `/devtools/browser/<id>`
    pub browser_path: String,
}

/// Parses `DevToolsActivePort`: line 1 the port, line 2 the browser endpoint path. `None` while
/// the file is incomplete or unexpected (the path goes into a request line, so it must be plain).
pub fn parse_active_port(contents: &str) -> Option<ActivePort> {
    let mut lines = contents.lines();
    let port: u16 = lines.next()?.trim().parse().ok().filter(|p| *p != 0)?;
    let path = lines.next()?.trim();
    let id = path.strip_prefix("/devtools/browser/")?;
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        return None;
    }
    Some(ActivePort {
        port,
        browser_path: path.to_string(),
    })
}

/// Reads and parses `<dir>/DevToolsActivePort`; `None` when it is absent or incomplete.
pub fn read_active_port(dir: &Path) -> Option<ActivePort> {
    fs::read_to_string(dir.join("DevToolsActivePort"))
        .ok()
        .and_then(|s| parse_active_port(&s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn default_profile_and_port() {
        let cmd = build_command(&strings(&["--window-size=800,600"]));
        assert_eq!(cmd.user_data_dir, PathBuf::from("/tmp/porthole-profile"));
        let n = BASE_FLAGS.len();
        assert_eq!(&cmd.args[..n], &strings(BASE_FLAGS)[..]);
        assert_eq!(
            &cmd.args[n..],
            &strings(&[
                "--user-data-dir=/tmp/porthole-profile",
                "--window-size=800,600",
            ])[..]
        );
        assert!(cmd.ignored.is_empty());
    }

    #[test]
    fn caller_profile_wins_and_appears_once() {
        let extra = strings(&[
            "--user-data-dir=/first",
            "--disable-extensions",
            "--user-data-dir=/profile",
            "--window-size=1280,800",
        ]);
        let cmd = build_command(&extra);
        assert_eq!(cmd.user_data_dir, PathBuf::from("/profile"));
        let dirs: Vec<_> = cmd
            .args
            .iter()
            .filter(|a| a.starts_with("--user-data-dir"))
            .collect();
        assert_eq!(dirs, ["--user-data-dir=/profile"]);
        assert!(cmd.args.contains(&"--remote-debugging-port=0".to_string()));
        let tail = &cmd.args[cmd.args.len() - 2..];
        assert_eq!(
            tail,
            &strings(&["--disable-extensions", "--window-size=1280,800"])[..]
        );
    }

    #[test]
    fn devtools_exposure_flags_are_dropped() {
        let extra = strings(&[
            "--remote-debugging-address=0.0.0.0",
            "--remote-debugging-port=1",
            "--remote-allow-origins=*",
            "--load-extension=/extensions/0,/extensions/1",
        ]);
        let cmd = build_command(&extra);
        assert_eq!(cmd.ignored.len(), 3);
        assert!(!cmd
            .args
            .iter()
            .any(|a| a.contains("0.0.0.0") || a.contains("allow-origins")));
        assert_eq!(
            cmd.args
                .iter()
                .filter(|a| a.starts_with("--remote-debugging-port"))
                .count(),
            1
        );
        assert_eq!(
            cmd.args.last().unwrap(),
            "--load-extension=/extensions/0,/extensions/1"
        );
    }

    #[test]
    fn parses_devtools_active_port() {
        let parsed =
            parse_active_port("9223\n/devtools/browser/4f1c6f0e-8a2b-4c1d-9e3f-0a1b2c3d4e5f\n");
        assert_eq!(
            parsed,
            Some(ActivePort {
                port: 9223,
                browser_path: "/devtools/browser/4f1c6f0e-8a2b-4c1d-9e3f-0a1b2c3d4e5f".into()
            })
        );
        assert!(parse_active_port("").is_none());
        assert!(parse_active_port("9223\n").is_none());
        assert!(parse_active_port("9223").is_none());
        assert!(parse_active_port("0\n/devtools/browser/x\n").is_none());
        assert!(parse_active_port("70000\n/devtools/browser/x\n").is_none());
        assert!(parse_active_port("9223\n/devtools/page/x\n").is_none());
        assert!(parse_active_port("9223\n/devtools/browser/\n").is_none());
        assert!(parse_active_port("9223\n/devtools/browser/a b\n").is_none());
        assert!(parse_active_port("9223\n/devtools/browser/a\rX: y\n").is_none());
    }

    #[test]
    fn removes_stale_files_including_dangling_symlinks() {
        let dir =
            std::env::temp_dir().join(format!("porthole-sidecar-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink("old-host-4242", dir.join("SingletonLock")).unwrap();
        std::os::unix::fs::symlink("/tmp/gone/SingletonSocket", dir.join("SingletonSocket"))
            .unwrap();
        fs::write(
            dir.join("DevToolsActivePort"),
            "9223\n/devtools/browser/old\n",
        )
        .unwrap();
        fs::write(dir.join("Local State"), "{}").unwrap();
        let removed = remove_stale_files(&dir).unwrap();
        assert_eq!(
            removed,
            ["SingletonLock", "SingletonSocket", "DevToolsActivePort"]
        );
        assert!(dir.join("Local State").exists());
        assert!(fs::symlink_metadata(dir.join("SingletonLock")).is_err());
        assert_eq!(remove_stale_files(&dir).unwrap(), Vec::<&str>::new());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_sandbox_argument_drops_no_sandbox_and_is_not_passed_on() {
        let plain = build_command(&strings(&["--window-size=800,600"]));
        assert!(plain.args.iter().any(|a| a == "--no-sandbox"));
        let sandboxed = build_command(&strings(&[SANDBOX_ARG, "--window-size=800,600"]));
        assert!(!sandboxed.args.iter().any(|a| a == "--no-sandbox"));
        assert!(!sandboxed.args.iter().any(|a| a == SANDBOX_ARG));
        assert!(sandboxed.args.iter().any(|a| a == "--window-size=800,600"));
    }
}
