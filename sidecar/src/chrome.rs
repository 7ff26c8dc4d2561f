//! Chromium's command line and its user-data dir: the flags the sidecar always passes (CDP on
//! `--remote-debugging-pipe`, no DevTools port), the caller's extra arguments, and the stale
//! files a killed container leaves behind.
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
    // CDP on fds 3 and 4 (the sidecar's `hub` owns the other ends): Chrome opens no TCP port,
    // so with `network: host` nothing but the secret-gated gate listens (DESIGN.md §13).
    "--remote-debugging-pipe",
];

/// A caller argument (never passed to Chrome) that turns Chromium's own sandbox on: the
/// daemon passes it only when the container runs under a seccomp profile that lets the
/// sandbox make its namespaces; without it, `--no-sandbox` stays.
pub const SANDBOX_ARG: &str = "--porthole-chromium-sandbox";

/// The throwaway profile used when the caller passes no `--user-data-dir`.
pub const DEFAULT_USER_DATA_DIR: &str = "/tmp/porthole-profile";

/// Files in the user-data dir that a killed Chrome leaves behind and that must go before the
/// next start: the `Singleton*` symlinks name the old container's hostname and pid (Chrome
/// refuses to start on them); a `DevToolsActivePort` from a sidecar before the pipe points at
/// nothing.
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
    /// Caller arguments dropped because they would open or move a DevTools endpoint.
    pub ignored: Vec<String>,
}

/// Builds Chrome's arguments: [`BASE_FLAGS`], exactly one
/// `--user-data-dir` (the caller's last one, else [`DEFAULT_USER_DATA_DIR`]), then the caller's
/// other arguments in order. `--remote-debugging-*` and `--remote-allow-origins` from the caller
/// are dropped: CDP goes only through the pipe and the gate. [`SANDBOX_ARG`] drops
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
        assert!(cmd.args.contains(&"--remote-debugging-pipe".to_string()));
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
        let devtools: Vec<_> = cmd
            .args
            .iter()
            .filter(|a| a.starts_with("--remote-debugging"))
            .collect();
        assert_eq!(devtools, ["--remote-debugging-pipe"]);
        assert_eq!(
            cmd.args.last().unwrap(),
            "--load-extension=/extensions/0,/extensions/1"
        );
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
