//! The vault's fixtures, the one place tests and benches make them: KeePass databases written
//! by the real `keepassxc-cli` (`scripts/setup/vault-tools.sh` installs it) from a one-group
//! XML export (each entry under group `Web`: items `<source>/Web/<title>`), the daemon config
//! of a vault with one such source and its shares, and the runner of the vault's command-line
//! tools (`keepassxc-cli`, `gpg`, `pass`).

use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::{json, Value};

use crate::daemon::{DaemonOptions, TestDaemon};

/// One entry of [`write`]'s database.
pub struct KdbxEntry<'a> {
    pub title: &'a str,
    pub username: &'a str,
    /// `None`: the entry has no password at all.
    pub password: Option<&'a str>,
    pub url: &'a str,
    /// An `otpauth://` URI in the entry's `otp` field (KeePassXC's TOTP).
    pub otp: Option<&'a str>,
    /// More string fields, as `(key, value)`: `KP2A_URL`, `TOTP Seed`, `TOTP Settings`….
    pub extra: &'a [(&'a str, &'a str)],
}

/// How [`write`] saves a database.
#[derive(Debug, Clone, Copy, Default)]
pub struct KdbxFormat {
    /// KDBX 4 instead of 3.1: the first entry gets custom data, which makes keepassxc-cli
    /// write KDBX 4 (see [`major_version`]).
    pub kdbx4: bool,
    /// Also locked by a key file, made beside it as `<dir>/<name>.key`.
    pub key_file: bool,
}

/// Runs `program` with `args`, `env` and `stdin`, asserting it succeeds; its stdout.
pub fn run(program: &str, args: &[&str], env: &[(&str, &Path)], stdin: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, *v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program} (scripts/setup/vault-tools.sh installs it): {e}"));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// Writes `<dir>/<name>.kdbx`, locked with `password` (and a key file if `format` says),
/// holding `entries` under group `Web`.
pub fn write(
    dir: &Path,
    name: &str,
    password: &str,
    entries: &[KdbxEntry],
    format: KdbxFormat,
) -> PathBuf {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let string = |key: &str, value: &str| {
        format!(
            "<String><Key>{key}</Key><Value>{}</Value></String>",
            escape(value)
        )
    };
    let mut xml = String::from(
        r#"<?xml version="1.0" encoding="utf-8" standalone="yes"?>
<KeePassFile><Meta><Generator>porthole-test</Generator></Meta><Root><Group>
<UUID>AAAAAAAAAAAAAAAAAAAAAA==</UUID><Name>Root</Name>
<Group><UUID>AAAAAAAAAAAAAAAAAAAAAQ==</UUID><Name>Web</Name>
"#,
    );
    for (i, e) in entries.iter().enumerate() {
        let uuid = base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            [[0u8; 15].as_slice(), &[2 + i as u8]].concat(),
        );
        xml.push_str(&format!("<Entry><UUID>{uuid}</UUID>"));
        if format.kdbx4 && i == 0 {
            xml.push_str(
                "<CustomData><Item><Key>porthole-test</Key><Value>kdbx4</Value></Item></CustomData>",
            );
        }
        xml.push_str(&string("Title", e.title));
        xml.push_str(&string("UserName", e.username));
        if let Some(password) = e.password {
            xml.push_str(&format!(
                "<String><Key>Password</Key><Value ProtectInMemory=\"True\">{}</Value></String>",
                escape(password)
            ));
        }
        xml.push_str(&string("URL", e.url));
        if let Some(otp) = e.otp {
            xml.push_str(&string("otp", otp));
        }
        for (key, value) in e.extra {
            xml.push_str(&string(key, value));
        }
        xml.push_str("</Entry>\n");
    }
    xml.push_str("</Group></Group></Root></KeePassFile>");
    let source = dir.join(format!("{name}.xml"));
    std::fs::write(&source, xml).unwrap();
    let db = dir.join(format!("{name}.kdbx"));
    let key = dir.join(format!("{name}.key"));
    let mut args = vec!["import", "-q", "-p", "-t", "100"];
    if format.key_file {
        args.extend(["--set-key-file", key.to_str().unwrap()]);
    }
    args.extend([source.to_str().unwrap(), db.to_str().unwrap()]);
    run(
        "keepassxc-cli",
        &args,
        &[],
        &format!("{password}\n{password}\n"),
    );
    std::fs::remove_file(&source).unwrap();
    db
}

/// The major version in a `.kdbx`'s header: 3 (KDBX 3.1) or 4.
pub fn major_version(db: &Path) -> u16 {
    let head = std::fs::read(db).unwrap();
    u16::from_le_bytes([head[10], head[11]])
}

/// The daemon config of a vault with one KeePass source, `kp` at `path`, and `shared` (items
/// such as `kp/Web/Forum`) each shared with every agent; no `share` list when none.
pub fn keepass_vault(path: &Path, shared: &[&str]) -> Value {
    let mut vault = json!({"sources": [{"kind": "keepass", "name": "kp", "path": path}]});
    if !shared.is_empty() {
        let share: Vec<Value> = shared
            .iter()
            .map(|item| json!({"item": item, "agents": ["*"]}))
            .collect();
        vault["share"] = json!(share);
    }
    json!({ "vault": vault })
}

/// A daemon whose vault has one KeePass source, `kp` in `dir` (locked with `password`), holding
/// one item, `kp/Web/Forum`: `alice` with `site_password` for the page at `site_url`.
pub async fn daemon_with_forum(
    dir: &Path,
    password: &str,
    site_password: &str,
    site_url: &str,
) -> TestDaemon {
    let kp = write(
        dir,
        "kp",
        password,
        &[KdbxEntry {
            title: "Forum",
            username: "alice",
            password: Some(site_password),
            url: site_url,
            otp: None,
            extra: &[],
        }],
        KdbxFormat::default(),
    );
    TestDaemon::start_with(DaemonOptions {
        config: keepass_vault(&kp, &[]),
        ..Default::default()
    })
    .await
}
