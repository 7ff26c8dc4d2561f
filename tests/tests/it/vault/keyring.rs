//! `porthole vault unlock <source>` through a real Secret Service (DESIGN.md §19): GNOME
//! Keyring in a private D-Bus session, as the cookie tests run it. The CLI checks the password
//! against the real `.kdbx` (a wrong one is refused and nothing is stored), stores it, a daemon
//! started in that session finds it and unlocks the source, and an agent's fill works;
//! `porthole vault forget` removes it and the next daemon stays locked, quietly. The entry
//! names the source and data dir, never the password; no output or log carries it.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::pages::PageServer;
use porthole_tests::vault_fixture::keepass_vault;
use porthole_tests::{cli, eventually, TempDir};
use serde_json::{json, Value};

use super::tools::{fill_forum_and_submit, keepass_db, state_of, CHANNEL, KP_PASSWORD};

/// A private D-Bus session bus with an unlocked GNOME Keyring (the Secret Service) on it.
/// The bus goes when this drops; the keyring daemon leaves with its bus.
struct KeyringSession {
    home: TempDir,
    bus: Child,
    address: String,
}

impl KeyringSession {
    fn start() -> Self {
        let home = TempDir::new("vault-keyring");
        for dir in ["data", "run", ".config"] {
            std::fs::create_dir_all(home.path().join(dir)).unwrap();
        }
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            home.path().join("run"),
            std::fs::Permissions::from_mode(0o700),
        )
        .unwrap();
        // The keyring daemon the bus starts inherits this environment: it keeps to the temp home.
        let mut bus = Self::in_home(Command::new("dbus-daemon"), home.path())
            .args(["--session", "--nofork", "--print-address=1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("dbus-daemon (scripts/setup/vault-tools.sh installs it)");
        let mut address = String::new();
        BufReader::new(bus.stdout.take().unwrap())
            .read_line(&mut address)
            .unwrap();
        let address = address.trim().to_string();
        assert!(address.starts_with("unix:"), "bus address {address:?}");
        // Unlock (creating) the login keyring with a known password, in this session.
        let mut unlock = Self::in_home(Command::new("gnome-keyring-daemon"), home.path())
            .args(["--unlock", "--components=secrets"])
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("gnome-keyring-daemon (scripts/setup/vault-tools.sh installs it)");
        unlock
            .stdin
            .take()
            .unwrap()
            .write_all(b"porthole-keyring-test")
            .unwrap();
        assert!(
            unlock.wait().unwrap().success(),
            "gnome-keyring-daemon --unlock"
        );
        Self { home, bus, address }
    }

    fn in_home(mut command: Command, home: &Path) -> Command {
        command
            .env("HOME", home)
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_RUNTIME_DIR", home.join("run"))
            .env_remove("GNOME_KEYRING_CONTROL");
        command
    }

    /// The environment that puts a process in this session.
    fn env(&self) -> Vec<(String, String)> {
        vec![("DBUS_SESSION_BUS_ADDRESS".into(), self.address.clone())]
    }

    /// What `secret-tool` lists of Porthole's entries: labels and attributes (secrets left out).
    fn porthole_entries(&self) -> Vec<String> {
        let out = Self::in_home(Command::new("secret-tool"), self.home.path())
            .args(["search", "--all", "application", "porthole-vault"])
            .env("DBUS_SESSION_BUS_ADDRESS", &self.address)
            .output()
            .expect("secret-tool (scripts/setup/vault-tools.sh installs it)");
        // secret-tool prints attributes on stderr and stdout depending on its version.
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        all.lines()
            .filter(|l| l.starts_with("label") || l.starts_with("attribute."))
            .map(str::to_string)
            .collect()
    }
}

impl Drop for KeyringSession {
    fn drop(&mut self) {
        let _ = self.bus.kill();
        let _ = self.bus.wait();
    }
}

/// `porthole vault <args>` on `data`'s config, in the session, with `stdin`: (ok, stdout,
/// stderr).
async fn vault_cli(
    data: &Path,
    session: &KeyringSession,
    args: &[&str],
    stdin: &str,
) -> (bool, String, String) {
    use tokio::io::AsyncWriteExt;
    let mut child = cli::porthole_in(data)
        .arg("vault")
        .args(args)
        .envs(session.env())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("porthole");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).await.unwrap();
    drop(input);
    let out = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("porthole vault answers within 60 s")
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

async fn overview_once_unlocked(daemon: &TestDaemon) -> Value {
    eventually(
        "kp unlocked from the keyring",
        Duration::from_secs(30),
        || async {
            let (_, overview) = daemon.get("/api/browser/vault").await;
            (state_of(&overview, "kp") == "unlocked").then_some(overview)
        },
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn vault_unlock_stores_the_password_in_the_secret_service_and_the_daemon_uses_it() {
    let session = KeyringSession::start();
    let site = PageServer::area("vault").await;
    let dir = TempDir::new("vault-db");
    let kp = keepass_db(dir.path(), "kp", &site.base(), true, false);
    let config = keepass_vault(&kp, &["kp/Web/Forum"]);
    let data = TempDir::new("daemon");
    std::fs::write(data.path().join("config.json"), config.to_string()).unwrap();
    let options = || DaemonOptions {
        config: config.clone(),
        env: session.env(),
        ..Default::default()
    };

    // A wrong password: refused, nothing stored.
    let wrong = "not-the-kp-password";
    let (ok, out, err) = vault_cli(
        data.path(),
        &session,
        &["unlock", "kp"],
        &format!("{wrong}\n"),
    )
    .await;
    assert!(!ok, "{out}{err}");
    assert!(
        err.contains("wrong password") && err.contains("nothing was stored"),
        "{err}"
    );
    assert!(!out.contains(wrong) && !err.contains(wrong), "{out}{err}");
    assert_eq!(session.porthole_entries(), Vec::<String>::new());
    // A pass store or an unknown source has no password to store.
    let (ok, _, err) = vault_cli(data.path(), &session, &["unlock", "nope"], "x\n").await;
    assert!(
        !ok && err.contains("no vault source named \"nope\""),
        "{err}"
    );

    // The right one: checked against the database, stored under the source and data dir.
    let (ok, out, err) = vault_cli(
        data.path(),
        &session,
        &["unlock", "kp"],
        &format!("{KP_PASSWORD}\n"),
    )
    .await;
    assert!(ok, "{out}{err}");
    assert!(out.contains("Stored the password of \"kp\""), "{out}");
    assert!(!out.contains(KP_PASSWORD) && !err.contains(KP_PASSWORD));
    let entries = session.porthole_entries();
    let data_dir = std::fs::canonicalize(data.path()).unwrap();
    assert!(
        entries.contains(&"attribute.porthole_source = kp".to_string())
            && entries.contains(&format!(
                "attribute.porthole_data_dir = {}",
                data_dir.display()
            )),
        "{entries:?}"
    );
    assert!(
        entries.iter().all(|e| !e.contains(KP_PASSWORD)),
        "{entries:?}"
    );

    // A daemon started in that session unlocks kp by itself; an agent's fill works.
    let daemon = TestDaemon::start_in(data, options()).await;
    overview_once_unlocked(&daemon).await;
    let (_, token) = daemon.add_agent(CHANNEL, "signer", &[]).await;
    let agent = daemon.caller(&token);
    agent
        .act_ok("navigate", json!({"url": site.url("/login.html")}))
        .await;
    fill_forum_and_submit(&agent, &site).await;
    assert!(daemon.logged("vault_keyring_unlocked"));
    assert!(
        !daemon.log().contains(KP_PASSWORD),
        "the password in the log"
    );

    // forget: gone from the keyring; the next daemon keeps kp locked, quietly.
    let data = daemon.stop().await;
    let (ok, out, err) = vault_cli(data.path(), &session, &["forget", "kp"], "").await;
    assert!(
        ok && out.contains("Removed the password of \"kp\""),
        "{out}{err}"
    );
    assert_eq!(session.porthole_entries(), Vec::<String>::new());
    let (ok, out, _) = vault_cli(data.path(), &session, &["forget", "kp"], "").await;
    assert!(ok && out.contains("No password of \"kp\""), "{out}");
    let daemon = TestDaemon::start_in(data, options()).await;
    eventually("the keyring looked up", Duration::from_secs(30), || async {
        daemon.logged("vault_keyring_none").then_some(())
    })
    .await;
    let (_, overview) = daemon.get("/api/browser/vault").await;
    assert_eq!(state_of(&overview, "kp"), "locked", "{overview}");
    assert!(
        daemon
            .log()
            .lines()
            .filter(|l| l.contains("vault_keyring"))
            .all(|l| !l.contains("WARN") && !l.contains("ERROR")),
        "{}",
        daemon.log()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_keyring_the_source_stays_locked_quietly() {
    let dir = TempDir::new("vault-db");
    let kp = keepass_db(dir.path(), "kp", "http://127.0.0.1:9", false, false);
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: keepass_vault(&kp, &[]),
        env: vec![(
            "DBUS_SESSION_BUS_ADDRESS".into(),
            "unix:path=/nonexistent/porthole-test-bus".into(),
        )],
        ..Default::default()
    })
    .await;
    eventually(
        "the keyring looked for",
        Duration::from_secs(30),
        || async { daemon.logged("vault_keyring_unavailable").then_some(()) },
    )
    .await;
    let (_, overview) = daemon.get("/api/browser/vault").await;
    assert_eq!(state_of(&overview, "kp"), "locked", "{overview}");
    let line = daemon.events_logged("vault_keyring_unavailable").join("\n");
    assert!(line.contains("DEBUG"), "{line}");
}
