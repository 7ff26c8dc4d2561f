//! Chromium with `--password-store=gnome-libsecret` inside a private D-Bus session with an
//! unlocked GNOME Keyring (v11 values), read by this library in that same session; then the
//! same profile with the keyring locked, and with no keyring at all.
//!
//! The reading must happen inside the D-Bus session, so the outer test re-runs this test binary
//! under `dbus-run-session` for the inner steps (marked `#[ignore]`: they only make sense when
//! started by the outer test, which always starts them).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::chromium_real::{check_profile, write_profile};
use super::support::*;
use crate::cookies::{discover_sources, read_cookies, CookieError, Discovery, Platform};

const STEP_ENV: &str = "PORTHOLE_COOKIE_V11_STEP";
const HOME_ENV: &str = "PORTHOLE_COOKIE_V11_HOME";

/// This module's path inside the crate, for `--exact` (drops the crate name).
fn inner_test_name(step: &str) -> String {
    let module = module_path!();
    let in_crate = module
        .split_once("::")
        .map(|(_, rest)| rest)
        .unwrap_or(module);
    format!("{in_crate}::{step}")
}

/// Runs the inner test `step` of this binary, optionally inside `dbus-run-session`, and fails
/// with its output if it fails.
fn run_step(home: &Path, step: &str, in_session: bool, extra_env: &[(&str, &str)]) {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = if in_session {
        let mut c = Command::new("dbus-run-session");
        c.arg("--").arg(&exe);
        c
    } else {
        Command::new(&exe)
    };
    let log = home.join(format!("{step}.log"));
    let log_file = std::fs::File::create(&log).unwrap();
    cmd.args([
        "--exact",
        &inner_test_name(step),
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(STEP_ENV, step)
    .env(HOME_ENV, home)
    // The keyring daemon D-Bus activates inherits this environment: keep it in the temp home.
    .env("HOME", home)
    .env("XDG_DATA_HOME", home.join("data"))
    .env("XDG_CONFIG_HOME", home.join(".config"))
    .env("XDG_RUNTIME_DIR", home.join("run"))
    .env_remove("GNOME_KEYRING_CONTROL")
    .stdout(log_file.try_clone().unwrap())
    .stderr(log_file);
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let mut child = ChildGuard {
        child: cmd
            .spawn()
            .expect("dbus-run-session (run scripts/setup/cookie-browsers.sh)"),
        what: "v11 step",
    };
    child.wait_exit(Duration::from_secs(240));
    let status = child.child.wait().unwrap();
    let output = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(status.success(), "step {step} failed ({status}):\n{output}");
    assert!(
        output.contains("1 passed"),
        "step {step} ran no test:\n{output}"
    );
    println!("--- step {step} ---\n{output}");
}

#[test]
fn chromium_gnome_keyring_v11_read_locked_and_absent() {
    let home = tempfile::Builder::new()
        .prefix("porthole-cookie-test-")
        .tempdir()
        .unwrap();
    for d in ["data", "run", ".config/chromium"] {
        std::fs::create_dir_all(home.path().join(d)).unwrap();
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            home.path().join("run"),
            std::fs::Permissions::from_mode(0o700),
        )
        .unwrap();
    }
    run_step(home.path(), "step_write_and_read_in_session", true, &[]);
    // No Secret Service reachable at all: a clear KeyringUnavailable, not a wrong value.
    run_step(
        home.path(),
        "step_read_without_keyring",
        false,
        &[(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/porthole-test-bus",
        )],
    );
}

fn step_home() -> Option<std::path::PathBuf> {
    std::env::var_os(HOME_ENV).map(Into::into)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "inner step of chromium_gnome_keyring_v11_read_locked_and_absent"]
async fn step_write_and_read_in_session() {
    let home = step_home().expect("started by the outer v11 test");
    // Unlock (creating) the login keyring with a known password in this session.
    let mut unlock = Command::new("gnome-keyring-daemon")
        .args(["--unlock", "--components=secrets"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("gnome-keyring-daemon");
    {
        use std::io::Write;
        let mut stdin = unlock.stdin.take().unwrap();
        stdin.write_all(b"porthole-test").unwrap();
    }
    let mut unlock = ChildGuard {
        child: unlock,
        what: "gnome-keyring-daemon --unlock",
    };
    unlock.wait_exit(Duration::from_secs(30));

    let ud = home.join(".config").join("chromium");
    write_profile(&ud, &["--password-store=gnome-libsecret"], &[]).await;
    let tags = encryption_tags(&ud.join("Default").join("Cookies"));
    assert!(
        !tags.is_empty() && tags.iter().all(|t| t == "v11"),
        "expected v11 values, got {tags:?}"
    );

    let h = home.clone();
    tokio::task::spawn_blocking(move || {
        check_profile(&h);
        // Lock the keyring: reading must now fail clearly, naming the browser.
        let ss =
            secret_service::blocking::SecretService::connect(secret_service::EncryptionType::Dh)
                .unwrap();
        for c in ss.get_all_collections().unwrap() {
            c.lock().unwrap();
        }
        let err = read_one(&h).unwrap_err();
        assert!(
            matches!(err, CookieError::KeyringUnavailable { .. }),
            "{err}"
        );
        let msg = err.to_string();
        assert!(
            msg.contains("chromium:Default") && msg.contains("locked"),
            "{msg}"
        );
        println!("locked keyring → {msg}");
    })
    .await
    .unwrap();
}

#[test]
#[ignore = "inner step of chromium_gnome_keyring_v11_read_locked_and_absent"]
fn step_read_without_keyring() {
    let home = step_home().expect("started by the outer v11 test");
    let err = read_one(&home).unwrap_err();
    assert!(
        matches!(err, CookieError::KeyringUnavailable { .. }),
        "{err}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("chromium:Default") && msg.contains("Chromium"),
        "{msg}"
    );
    println!("no keyring → {msg}");
}

/// Reads one persistent v11 cookie of the profile under `home`.
fn read_one(home: &Path) -> Result<crate::cookies::ReadOutcome, CookieError> {
    let sources = discover_sources(&Discovery::for_home(Platform::Linux, home));
    let source = sources.iter().find(|s| s.id == "chromium:Default").unwrap();
    read_cookies(
        source,
        &[".example.test".to_owned()],
        std::time::SystemTime::now(),
    )
}
