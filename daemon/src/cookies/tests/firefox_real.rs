//! Firefox ESR: a profile written by the real browser, read while Firefox still runs (the
//! cookies are in the WAL then) and again after it exits; containers are left out; the read
//! cookies are installed into a real Chromium.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use super::chromium_real::install_round_trip;
use super::support::*;
use crate::cookies::{
    discover_sources, list_scopes, read_cookies, Browser, CookieSource, Discovery, Platform,
    ReadOutcome,
};

const PROFILE_DIR: &str = "t3st0000.porthole";

const PREFS: &str = r#"
user_pref("network.dns.forceResolve", "127.0.0.1");
user_pref("network.proxy.type", 0);
user_pref("dom.securecontext.allowlist", "gist.example.test,embed.example.org");
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("app.update.disabledForTesting", true);
user_pref("browser.aboutwelcome.enabled", false);
"#;

/// A temp home with a Firefox profile registered in `~/.mozilla/firefox/profiles.ini`.
fn firefox_home() -> (tempfile::TempDir, PathBuf) {
    let home = tempfile::Builder::new()
        .prefix("porthole-cookie-test-")
        .tempdir()
        .unwrap();
    let root = home.path().join(".mozilla").join("firefox");
    let profile = root.join(PROFILE_DIR);
    std::fs::create_dir_all(&profile).unwrap();
    std::fs::write(profile.join("user.js"), PREFS).unwrap();
    std::fs::write(
        root.join("profiles.ini"),
        format!("[Profile0]\nName=Porthole test\nIsRelative=1\nPath={PROFILE_DIR}\nDefault=1\n\n[General]\nStartWithLastProfile=1\nVersion=2\n"),
    )
    .unwrap();
    (home, profile)
}

/// The Firefox source under `home`, once Firefox has created its `cookies.sqlite`.
fn source_in(home: &Path) -> CookieSource {
    wait_for(
        "Firefox to create cookies.sqlite",
        Duration::from_secs(60),
        || {
            discover_sources(&Discovery::for_home(Platform::Linux, home))
                .into_iter()
                .find(|s| s.browser == Browser::Firefox)
        },
    )
}

fn wanted() -> Vec<String> {
    ["gist.example.test", ".example.test", "embed.example.org"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// Reads the chosen scopes an hour from now (the Max-Age=60 cookie has expired by then).
fn read_all(source: &CookieSource) -> ReadOutcome {
    read_cookies(
        source,
        &wanted(),
        SystemTime::now() + Duration::from_secs(3600),
    )
    .unwrap()
}

fn check_outcome(outcome: &ReadOutcome) {
    let mut names: Vec<&str> = outcome.cookies.iter().map(|c| c.name.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        ["ff_domain", "ff_host", "ff_lax", "ff_secure", "ff_third"]
    );
    assert_eq!(outcome.skipped_expired, 1, "ff_short");
    assert_eq!(
        outcome.skipped_session, 0,
        "Firefox keeps session cookies out of the file"
    );
    let in_a_day = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        + 86400.0;
    for c in &outcome.cookies {
        assert_eq!(c.value, format!("{}-v", c.name), "value of {}", c.name);
        // Schema 17 stores milliseconds: a seconds reading would be off by a factor of 1000.
        assert!(
            (c.expires - in_a_day).abs() < 300.0,
            "{} expires {}",
            c.name,
            c.expires
        );
        assert!(!format!("{c:?}").contains(&c.value));
    }
    let json: Vec<Value> = outcome
        .cookies
        .iter()
        .map(|c| serde_json::to_value(c).unwrap())
        .collect();
    let host = by_name(&json, "ff_host");
    assert_eq!(host["url"], "http://gist.example.test/");
    assert_eq!(
        (host["httpOnly"].clone(), host["sameSite"].clone()),
        (json!(true), json!("Strict"))
    );
    assert_eq!(by_name(&json, "ff_lax")["sameSite"], "Lax");
    assert_eq!(by_name(&json, "ff_lax")["path"], "/sub");
    let dom = by_name(&json, "ff_domain");
    assert_eq!(dom["domain"], ".example.test");
    assert!(dom.get("sameSite").is_none(), "256 = unset: {dom}");
    let sec = by_name(&json, "ff_secure");
    assert_eq!(sec["url"], "https://gist.example.test/");
    assert_eq!(
        (sec["secure"].clone(), sec["sameSite"].clone()),
        (json!(true), json!("None"))
    );
    let third = by_name(&json, "ff_third");
    assert_eq!(
        third["partitionKey"],
        json!({"topLevelSite": "http://example.test", "hasCrossSiteAncestor": false})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_esr_read_while_running_and_after_exit() {
    let (home, profile) = firefox_home();
    let server = CookieServer::start(Box::new(|path, host| {
        let c = |name: &str, attrs: &str| format!("{name}={name}-v; {attrs}");
        let port = host.rsplit(':').next().unwrap_or("80");
        match path {
            // The page embeds a third-party frame; with Total Cookie Protection its cookie is
            // stored partitioned under the top-level site.
            "/ff" => (
                vec![
                    c("ff_domain", "Domain=example.test; Path=/; Max-Age=86400"),
                    c("ff_short", "Domain=example.test; Path=/; Max-Age=60"),
                    c("ff_host", "Path=/; Max-Age=86400; SameSite=Strict; HttpOnly"),
                    c("ff_lax", "Path=/sub; Max-Age=86400; SameSite=Lax"),
                    c("ff_secure", "Path=/; Max-Age=86400; Secure; SameSite=None"),
                    c("ff_session", "Path=/"),
                ],
                format!("<html><body><iframe src='http://embed.example.org:{port}/embed'></iframe></body></html>"),
            ),
            "/embed" => (vec![c("ff_third", "Path=/; Max-Age=86400; Secure; SameSite=None")], "embedded".into()),
            _ => (Vec::new(), String::new()),
        }
    }));
    let top = format!("http://gist.example.test:{}/ff", server.port);
    let mut firefox = ChildGuard::spawn(
        "firefox-esr",
        Command::new("firefox-esr")
            .args(["--headless", "--no-remote", "--profile"])
            .arg(&profile)
            .arg(&top)
            .env("HOME", home.path())
            .env("MOZ_CRASHREPORTER_DISABLE", "1"),
    );
    let source = tokio::task::spawn_blocking({
        let home = home.path().to_owned();
        move || source_in(&home)
    })
    .await
    .unwrap();
    assert_eq!(source.id, format!("firefox:{PROFILE_DIR}"));
    assert_eq!(source.name, "Porthole test");

    // While Firefox runs: the cookies sit in the WAL; the copy-based reader sees them.
    let running = tokio::task::spawn_blocking({
        let source = source.clone();
        move || {
            wait_for(
                "Firefox to write its cookies",
                Duration::from_secs(60),
                || {
                    let scopes = list_scopes(&source).ok()?;
                    let count = |s: &str| scopes.iter().find(|r| r.scope == s).map(|r| r.count);
                    (count("gist.example.test") == Some(3)
                        && count(".example.test") == Some(2)
                        && count("embed.example.org") == Some(1))
                    .then_some(scopes)
                },
            );
            let scopes = list_scopes(&source).unwrap();
            let parent = |s: &str| scopes.iter().find(|r| r.scope == s).unwrap().parent.clone();
            assert_eq!(
                parent("gist.example.test").as_deref(),
                Some(".example.test")
            );
            assert_eq!(parent("embed.example.org"), None);
            let outcome = read_all(&source);
            check_outcome(&outcome);
            outcome
        }
    })
    .await
    .unwrap();
    assert!(
        profile.join("cookies.sqlite-wal").exists(),
        "Firefox keeps a WAL while running; this test meant to read through it"
    );

    firefox.terminate(Duration::from_secs(60));
    let after = tokio::task::spawn_blocking({
        let source = source.clone();
        move || read_all(&source)
    })
    .await
    .unwrap();
    check_outcome(&after);
    assert_eq!(sorted(&running), sorted(&after));

    // A container (userContextId) copy of a cookie is neither counted nor read.
    let conn = rusqlite::Connection::open(profile.join("cookies.sqlite")).unwrap();
    conn.execute_batch(
        "CREATE TEMP TABLE t AS SELECT * FROM moz_cookies WHERE name = 'ff_host';
         UPDATE t SET id = id + 1000000, name = 'ff_container', originAttributes = '^userContextId=2';
         INSERT INTO moz_cookies SELECT * FROM t;",
    )
    .unwrap();
    drop(conn);
    let (scopes, outcome) = tokio::task::spawn_blocking({
        let source = source.clone();
        move || (list_scopes(&source).unwrap(), read_all(&source))
    })
    .await
    .unwrap();
    assert_eq!(
        scopes
            .iter()
            .find(|r| r.scope == "gist.example.test")
            .unwrap()
            .count,
        3
    );
    assert!(outcome.cookies.iter().all(|c| c.name != "ff_container"));

    install_round_trip(&after.cookies).await;
}

fn sorted(o: &ReadOutcome) -> Vec<(String, String)> {
    let mut v: Vec<_> = o
        .cookies
        .iter()
        .map(|c| (c.name.clone(), c.value.clone()))
        .collect();
    v.sort();
    v
}
