//! KeePass databases for the vault's person-side tests, written by the real `keepassxc-cli`
//! (`scripts/setup/vault-tools.sh` installs it) from a one-group XML export: each entry a
//! title, a user name, a password and a URL, under group `Web` (items `<source>/Web/<title>`).

use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::json;

use crate::daemon::{DaemonOptions, TestDaemon};

/// One entry of [`write`]'s database.
pub struct KdbxEntry<'a> {
    pub title: &'a str,
    pub username: &'a str,
    pub password: &'a str,
    pub url: &'a str,
}

/// Writes `<dir>/<name>.kdbx`, locked with `password`, holding `entries` under group `Web`.
pub fn write(dir: &Path, name: &str, password: &str, entries: &[KdbxEntry]) -> PathBuf {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
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
        xml.push_str(&format!(
            "<Entry><UUID>{uuid}</UUID>\
             <String><Key>Title</Key><Value>{}</Value></String>\
             <String><Key>UserName</Key><Value>{}</Value></String>\
             <String><Key>Password</Key><Value ProtectInMemory=\"True\">{}</Value></String>\
             <String><Key>URL</Key><Value>{}</Value></String></Entry>\n",
            escape(e.title),
            escape(e.username),
            escape(e.password),
            escape(e.url)
        ));
    }
    xml.push_str("</Group></Group></Root></KeePassFile>");
    let source = dir.join(format!("{name}.xml"));
    std::fs::write(&source, xml).unwrap();
    let db = dir.join(format!("{name}.kdbx"));
    let mut child = std::process::Command::new("keepassxc-cli")
        .args(["import", "-q", "-p", "-t", "100"])
        .arg(&source)
        .arg(&db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("keepassxc-cli (scripts/setup/vault-tools.sh installs it): {e}")
        });
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{password}\n{password}\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "keepassxc-cli import: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_file(&source).unwrap();
    db
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
            password: site_password,
            url: site_url,
        }],
    );
    TestDaemon::start_with(DaemonOptions {
        config: json!({"vault": {"sources": [{"kind": "keepass", "name": "kp", "path": kp}]}}),
        ..Default::default()
    })
    .await
}
