//! Importing cookies from the user's own browsers, through the real daemon, from profiles the
//! real browsers wrote in a temp home (`browser.cookie_import.home`): listing and folding,
//! import into a real local-mode channel browser read back with `Storage.getCookies`, the
//! auto replay, every fault, and the promises — values are never logged (trace level), never
//! returned, never stored in any file the daemon keeps; only ticked scopes go in.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use porthole_tests::cookie_profiles::{
    all_cookies, cookie_setter, start_firefox, temp_home, write_chromium_profile,
};
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::devtools_port::Probe;
use porthole_tests::pane::Pane;
use porthole_tests::{eventually, Poll};
use serde_json::{json, Value};

fn now_secs() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// A value no other byte sequence in the test run could contain by chance.
fn planted(tag: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("PV{tag}x{}x{nanos:09}", std::process::id())
}

fn daemon_options(home: &Path, extra: Value) -> DaemonOptions {
    let mut import = json!({"home": home});
    if let (Some(import), Some(extra)) = (import.as_object_mut(), extra.as_object()) {
        import.extend(extra.clone());
    }
    DaemonOptions {
        config: json!({"browser": {"cookie_import": import}}),
        rust_log: "trace",
        ..Default::default()
    }
}

fn source<'a>(listing: &'a Value, id: &str) -> &'a Value {
    listing["sources"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["id"] == id))
        .unwrap_or_else(|| panic!("no source {id} in {listing}"))
}

fn scope<'a>(source: &'a Value, name: &str) -> &'a Value {
    source["scopes"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["scope"] == name))
        .unwrap_or_else(|| panic!("no scope {name} in {source}"))
}

fn cookie<'a>(cookies: &'a [Value], name: &str) -> &'a Value {
    cookies
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no cookie {name} in {cookies:?}"))
}

/// Every file under `dir` except the channel browsers' own profiles (Chrome writes imported
/// cookies there itself, encrypted, which is the point of the import).
fn kept_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path != root.join("profiles") {
                kept_files(root, &path, out);
            }
        } else {
            out.push(path);
        }
    }
}

/// The promises: no planted value in the daemon's log, any API answer, or any file it keeps.
fn assert_values_never_leave(daemon: &TestDaemon, responses: &[Value], values: &[&str]) {
    let log = daemon.log();
    assert!(
        log.contains("TRACE"),
        "the daemon should log at trace level here"
    );
    let mut files = Vec::new();
    kept_files(daemon.data.path(), daemon.data.path(), &mut files);
    assert!(files.iter().any(|f| f.ends_with("state.sqlite3")));
    assert!(files.iter().any(|f| f.ends_with("porthole.log")));
    for value in values {
        assert!(!log.contains(value), "a cookie value is in the log");
        for body in responses {
            assert!(
                !body.to_string().contains(value),
                "a cookie value is in an API answer: {body}"
            );
        }
        for file in &files {
            let bytes = std::fs::read(file).unwrap_or_default();
            assert!(
                !bytes.windows(value.len()).any(|w| w == value.as_bytes()),
                "a cookie value is in {}",
                file.display()
            );
        }
    }
}

/// A copy of a Chromium profile's `Cookies` as another profile of the same user-data dir,
/// changed by `sql`.
fn derived_profile(ud: &Path, name: &str, sql: &str) {
    let dir = ud.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(ud.join("Default").join("Cookies"), dir.join("Cookies")).unwrap();
    if !sql.is_empty() {
        let conn = rusqlite::Connection::open(dir.join("Cookies")).unwrap();
        conn.execute_batch(sql).unwrap();
    }
}

/// The values planted in the profile's cookies (each unique to this run).
struct Planted {
    domain: String,
    host: String,
    sub: String,
    session: String,
    other: String,
    secure: String,
    short: String,
}

impl Planted {
    fn new() -> Self {
        Self {
            domain: planted("dom"),
            host: planted("host"),
            sub: planted("sub"),
            session: planted("sess"),
            other: planted("other"),
            secure: planted("sec"),
            short: planted("short"),
        }
    }

    fn all(&self) -> [&str; 7] {
        [
            &self.domain,
            &self.host,
            &self.sub,
            &self.session,
            &self.other,
            &self.secure,
            &self.short,
        ]
    }
}

/// A Chromium user-data dir whose `Default` profile holds the planted cookies (set by pages
/// and written through CDP, one of them about to expire) beside faulty neighbours (Profile 2
/// is not SQLite, 3 has a future schema, 4 needs a keyring, 5 will vanish), and a daemon that
/// lists it with no Secret Service to answer.
struct Profiles {
    _home: porthole_tests::TempDir,
    v: Planted,
    ud: PathBuf,
    short_expiry: f64,
    daemon: TestDaemon,
}

impl Profiles {
    async fn start() -> Self {
        let home = temp_home();
        let v = Planted::new();
        let setter = cookie_setter(vec![
            vec![
                format!(
                    "ck_domain={}; Domain=example.test; Path=/; Max-Age=86400",
                    v.domain
                ),
                format!(
                    "ck_host={}; Path=/; Max-Age=86400; HttpOnly; SameSite=Strict",
                    v.host
                ),
                format!("ck_sub={}; Path=/sub; Max-Age=86400; SameSite=Lax", v.sub),
                format!("ck_session={}; Path=/", v.session),
            ],
            vec![format!("ck_other={}; Path=/; Max-Age=86400", v.other)],
        ])
        .await;
        let (v_secure, v_short) = (&v.secure, &v.short);
        // Long enough to be written to disk under load, short enough to expire during the test.
        let short_expiry = now_secs().ceil() + 15.0;
        let ud = write_chromium_profile(
            home.path(),
            &[
                format!("http://gist.example.test:{}/set/0", setter.port()),
                format!("http://other.test:{}/set/1", setter.port()),
            ],
            &["ck_domain", "ck_host", "ck_sub", "ck_session", "ck_other"],
            json!([
                {"name": "ck_secure", "value": v_secure, "domain": ".example.org", "path": "/",
                 "secure": true, "httpOnly": true, "sameSite": "None", "expires": now_secs() + 86400.0},
                {"name": "ck_short", "value": v_short, "domain": ".example.test", "path": "/",
                 "expires": short_expiry},
            ]),
        )
        .await;
        // Faulty neighbours of the good profile.
        let p2 = ud.join("Profile 2");
        std::fs::create_dir_all(&p2).unwrap();
        std::fs::write(
            p2.join("Cookies"),
            b"not an SQLite database at all. ".repeat(200),
        )
        .unwrap();
        derived_profile(
            &ud,
            "Profile 3",
            "UPDATE meta SET value = '99' WHERE key = 'version';",
        );
        derived_profile(
            &ud,
            "Profile 4",
            "UPDATE cookies SET encrypted_value = CAST('v11' AS BLOB) || substr(encrypted_value, 4);",
        );
        derived_profile(&ud, "Profile 5", "");

        let mut options = daemon_options(home.path(), json!({}));
        // No Secret Service answers this daemon: v11 values need one.
        options.env.push((
            "DBUS_SESSION_BUS_ADDRESS".to_string(),
            "unix:path=/nonexistent/porthole-test-bus".into(),
        ));
        let daemon = TestDaemon::start_with(options).await;
        Self {
            _home: home,
            v,
            ud,
            short_expiry,
            daemon,
        }
    }
}

/// The scopes the import ticks.
fn ticked() -> Value {
    json!(["gist.example.test", ".example.test"])
}

/// An import request into channel `ck`.
fn import(source: &str, domains: Value) -> Value {
    json!({"channel_id": "ck", "source": source, "domains": domains})
}

/// One profile set through every step in turn; every answer is kept to check at the end that
/// no planted value left the daemon.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_profile_lists_imports_only_ticked_scopes_and_never_leaks_a_value() {
    let s = Profiles::start().await;
    let mut answers = Vec::new();
    lists_and_folds_the_scopes_of_each_profile(&s, &mut answers).await;
    refuses_an_import_into_a_channel_not_running(&s, &mut answers).await;
    let pane = Pane::connect(&s.daemon.addr, &s.daemon.token).await;
    let tab = pane.start("ck").await;
    let probe = names_the_source_of_every_fault_and_installs_nothing(&s, &mut answers).await;
    imports_the_last_committed_state_under_a_lock(&s, &mut answers).await;
    the_channel_holds_only_the_ticked_cookies(&s, &probe).await;
    stores_only_the_choice(&s);
    the_pane_dialog_ticks_and_filters(&s, &pane, &probe, &tab, &mut answers).await;
    let (_, again) = s
        .daemon
        .get("/api/browser/cookies/sources?channel_id=ck")
        .await;
    answers.push(again);
    let (_, channels) = s.daemon.get("/api/browser/channels").await;
    answers.push(channels);
    drop(pane);
    assert_values_never_leave(&s.daemon, &answers, &s.v.all());
}

/// Listing and folding: busiest scope first, subdomains under their parent, and each faulty
/// profile named with its error (listing never decrypts, so it needs no keyring).
async fn lists_and_folds_the_scopes_of_each_profile(s: &Profiles, answers: &mut Vec<Value>) {
    let daemon = &s.daemon;
    let (status, listing) = daemon.get("/api/browser/cookies/sources").await;
    assert_eq!(status, 200, "{listing}");
    answers.push(listing.clone());
    let good = source(&listing, "chromium:Default");
    assert_eq!(good["browser"], "chromium");
    assert_eq!(good["profile"], "Default");
    assert_eq!(
        good["scopes"][0]["scope"], "gist.example.test",
        "busiest first: {good}"
    );
    let gist = scope(good, "gist.example.test");
    assert_eq!(
        (gist["count"].clone(), gist["parent"].clone()),
        (json!(3), json!(".example.test"))
    );
    let dot = scope(good, ".example.test");
    assert_eq!(
        (dot["count"].clone(), dot["parent"].clone()),
        (json!(2), Value::Null)
    );
    assert_eq!(scope(good, "other.test")["count"], 1);
    assert_eq!(scope(good, ".example.org")["count"], 1);
    assert_eq!(good["scopes"].as_array().unwrap().len(), 4, "{good}");
    assert!(good.get("error").is_none());
    let corrupt = source(&listing, "chromium:Profile 2");
    assert_eq!(corrupt["error"]["code"], "cookie_db_corrupt", "{corrupt}");
    assert!(corrupt["error"]["message"]
        .as_str()
        .unwrap()
        .contains("chromium:Profile 2"));
    assert_eq!(
        source(&listing, "chromium:Profile 3")["error"]["code"],
        "cookie_db_future_schema"
    );
    assert_eq!(
        scope(source(&listing, "chromium:Profile 4"), "gist.example.test")["count"],
        3,
        "listing never decrypts, so it needs no keyring"
    );
}

/// An import into a channel whose browser is not running is refused with what to do.
async fn refuses_an_import_into_a_channel_not_running(s: &Profiles, answers: &mut Vec<Value>) {
    let daemon = &s.daemon;
    let (status, body) = daemon
        .post(
            "/api/browser/cookies/import",
            &import("chromium:Default", ticked()),
        )
        .await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (409, json!("channel_not_running")),
        "{body}"
    );
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("open the channel first"));
    answers.push(body);
}

/// Every fault is a clear error naming the source; nothing goes in. Returns a probe into the
/// channel's browser.
async fn names_the_source_of_every_fault_and_installs_nothing(
    s: &Profiles,
    answers: &mut Vec<Value>,
) -> Probe {
    let daemon = &s.daemon;
    let faults = [
        (
            "chromium:Nope",
            json!(["gist.example.test"]),
            404,
            "unknown_cookie_source",
        ),
        (
            "chromium:Default",
            json!(["gist.example.test", "nope.test"]),
            400,
            "unknown_scopes",
        ),
        ("chromium:Default", json!([]), 400, "no_scopes"),
        (
            "chromium:Profile 2",
            json!(["gist.example.test"]),
            422,
            "cookie_db_corrupt",
        ),
        (
            "chromium:Profile 3",
            json!(["gist.example.test"]),
            422,
            "cookie_db_future_schema",
        ),
        (
            "chromium:Profile 4",
            json!(["gist.example.test"]),
            503,
            "keyring_unavailable",
        ),
    ];
    for (src, domains, want_status, want_code) in faults {
        let (status, body) = daemon
            .post("/api/browser/cookies/import", &import(src, domains.clone()))
            .await;
        assert_eq!(
            (status, body["error"]["code"].as_str().unwrap_or("")),
            (want_status, want_code),
            "{src} {domains}: {body}"
        );
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(src), "{message}");
        answers.push(body);
    }
    // A profile whose database vanished after it was listed.
    std::fs::remove_file(s.ud.join("Profile 5").join("Cookies")).unwrap();
    let (status, body) = daemon
        .post(
            "/api/browser/cookies/import",
            &import("chromium:Profile 5", json!(["gist.example.test"])),
        )
        .await;
    assert_eq!(status, 404, "{body}");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("chromium:Profile 5"));
    answers.push(body);
    let probe = Probe::connect(&daemon.profile_dir("ck")).await;
    assert!(
        all_cookies(&probe.cdp).await.is_empty(),
        "a failed import installed something"
    );
    probe
}

/// Once the short cookie has expired, the import works while another process holds the live
/// database locked mid-write: it reads the last committed state.
async fn imports_the_last_committed_state_under_a_lock(s: &Profiles, answers: &mut Vec<Value>) {
    let daemon = &s.daemon;
    // Wait until the short cookie has expired (a clock condition, not a fixed sleep).
    eventually("ck_short to expire", Duration::from_secs(30), || async {
        (now_secs() > s.short_expiry + 0.5).then_some(())
    })
    .await;

    // The import works while another process holds the live database locked mid-write: it
    // reads the last committed state.
    let holder = rusqlite::Connection::open(s.ud.join("Default").join("Cookies")).unwrap();
    holder
        .execute_batch("BEGIN EXCLUSIVE; DELETE FROM cookies;")
        .unwrap();
    let (status, outcome) = daemon
        .post(
            "/api/browser/cookies/import",
            &import("chromium:Default", ticked()),
        )
        .await;
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(
        outcome,
        json!({"imported": 3, "skipped_session": 1, "skipped_expired": 1})
    );
    answers.push(outcome);
}

/// Read back from the channel's own Chromium: the ticked scopes' cookies, as they were.
async fn the_channel_holds_only_the_ticked_cookies(s: &Profiles, probe: &Probe) {
    let got = all_cookies(&probe.cdp).await;
    let mut names: Vec<&str> = got.iter().filter_map(|c| c["name"].as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        ["ck_domain", "ck_host", "ck_sub"],
        "only the ticked scopes: {got:?}"
    );
    let in_a_day = now_secs() + 86400.0;
    let host = cookie(&got, "ck_host");
    assert_eq!(host["value"], s.v.host.as_str());
    assert_eq!(host["domain"], "gist.example.test");
    assert_eq!(host["path"], "/");
    assert_eq!(host["httpOnly"], true);
    assert_eq!(host["secure"], false);
    assert_eq!(host["sameSite"], "Strict");
    assert_eq!(host["session"], false);
    let sub = cookie(&got, "ck_sub");
    assert_eq!(
        (sub["value"].as_str(), sub["path"].as_str()),
        (Some(s.v.sub.as_str()), Some("/sub"))
    );
    assert_eq!(sub["sameSite"], "Lax");
    let dom = cookie(&got, "ck_domain");
    assert_eq!(dom["value"], s.v.domain.as_str());
    assert_eq!(dom["domain"], ".example.test");
    assert_eq!(dom["httpOnly"], false);
    for c in &got {
        let expires = c["expires"].as_f64().unwrap();
        assert!(
            (expires - in_a_day).abs() < 600.0,
            "{}: expires {expires}",
            c["name"]
        );
    }
}

/// Only the choice is stored: source and scope names.
fn stores_only_the_choice(s: &Profiles) {
    let daemon = &s.daemon;
    let state = rusqlite::Connection::open(daemon.data.path().join("state.sqlite3")).unwrap();
    let (src, domains): (String, String) = state
        .query_row(
            "SELECT source, domains FROM cookie_choice WHERE channel_id = 'ck'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(src, "chromium:Default");
    assert_eq!(serde_json::from_str::<Value>(&domains).unwrap(), ticked());
    drop(state);
}

/// The pane's dialog, in a real browser (the channel's own): it lists through the API, opens
/// with nothing ticked, a parent's tick takes the scopes under it, search filters.
async fn the_pane_dialog_ticks_and_filters(
    s: &Profiles,
    pane: &Pane,
    probe: &Probe,
    tab: &str,
    answers: &mut Vec<Value>,
) {
    let daemon = &s.daemon;
    let mark = pane.mark();
    pane.send(json!({"type": "navigate", "url": format!("http://{}/#token={}", daemon.addr, daemon.token)}));
    pane.message_where("the panel page", mark, |m| {
        m["type"] == "page_info" && m["title"] == "Porthole"
    })
    .await;
    // The title comes before the panel's modules run: wait for them (the full suite's load
    // once kept them past 10 s).
    Poll::new("the panel's modules", Duration::from_secs(60))
        .explained(
            || async { (probe.eval(tab, "!!window.porthole").await == json!(true)).then_some(()) },
            // What the page had instead: its state and which panel files it fetched (CI once
            // timed out here with no clue).
            || async {
                let seen = probe
                    .eval(
                        tab,
                        "JSON.stringify({href: location.href, ready: document.readyState, \
                         fetched: performance.getEntriesByType('resource').map(e => \
                         e.name.split('/').pop() + ':' + e.responseStatus + ':' + Math.round(e.duration))})",
                    )
                    .await;
                Some(format!("the page showed {seen}"))
            },
        )
        .await;
    let dialog = probe
        .eval(
            tab,
            r#"(async () => { try {
                const d = window.porthole.cookies;
                await d.open();
                d.pickSource('chromium:Default', false);
                const before = d.ticked.size;
                document.querySelector('.cookie-scopes > li > .cookie-row input[data-scope=".example.test"]').click();
                const parentTick = [...d.ticked].sort();
                d.search.value = 'other';
                d.search.dispatchEvent(new Event('input'));
                const shown = [...document.querySelectorAll('.cookie-scopes > li > .cookie-row .name')].map(e => e.textContent);
                document.querySelector('.cookie-clear').click();
                const cleared = d.ticked.size;
                d.selectAll();
                return {before, parentTick, shown, cleared, all: d.ticked.size,
                        options: d.sourceSelect.options.length};
            } catch (e) { return {error: String(e && e.stack || e)}; } })()"#,
        )
        .await;
    assert_eq!(dialog["before"], 0, "{dialog}");
    assert_eq!(
        dialog["parentTick"],
        json!([".example.test", "gist.example.test"]),
        "{dialog}"
    );
    assert_eq!(dialog["shown"], json!(["other.test"]), "{dialog}");
    assert_eq!(
        (dialog["cleared"].clone(), dialog["all"].clone()),
        (json!(0), json!(4))
    );
    assert_eq!(dialog["options"], 4, "{dialog}");
    answers.push(dialog);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_replay_fills_every_fresh_browser_and_a_failure_never_stops_a_start() {
    let home = temp_home();
    let value = planted("auto");
    let setter = cookie_setter(vec![vec![format!(
        "ck_auto={value}; Domain=example.test; Path=/; Max-Age=86400"
    )]])
    .await;
    write_chromium_profile(
        home.path(),
        &[format!("http://www.example.test:{}/set/0", setter.port())],
        &["ck_auto"],
        json!([]),
    )
    .await;
    let daemon = TestDaemon::start_with(daemon_options(
        home.path(),
        json!({"source": "chromium:Default", "domains": [".example.test", "gone.test"], "auto": true}),
    ))
    .await;
    let (_, doc) = daemon.get("/api/openapi.json").await;
    for path in [
        "/api/browser/cookies/sources",
        "/api/browser/cookies/import",
    ] {
        assert!(
            doc["paths"][path].is_object(),
            "{path} missing from the OpenAPI document"
        );
    }
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("auto").await;
    let done = pane
        .message_where("the replay's progress", 0, |m| {
            m["type"] == "progress"
                && m["stage"] == "cookies"
                && m["message"].as_str().unwrap_or("").starts_with("Imported")
        })
        .await;
    let line = done["message"].as_str().unwrap();
    assert!(
        line.contains("Imported 1 cookies from chromium:Default"),
        "{line}"
    );
    assert!(
        line.contains("no longer in the source: gone.test"),
        "{line}"
    );
    let probe = Probe::connect(&daemon.profile_dir("auto")).await;
    let got = all_cookies(&probe.cdp).await;
    assert_eq!(cookie(&got, "ck_auto")["value"], value.as_str());
    assert!(daemon.log().contains("cookie_replay_scopes_missing"));
    assert_values_never_leave(&daemon, &[done], &[&value]);
    drop(pane);

    // A source that is not there: a warning and a notice, and the browser starts anyway.
    let broken = TestDaemon::start_with(daemon_options(
        home.path(),
        json!({"source": "chromium:Nope", "domains": [".example.test"], "auto": true}),
    ))
    .await;
    let pane = Pane::connect(&broken.addr, &broken.token).await;
    pane.start("auto").await;
    let failed = pane
        .message_where("the failed replay's notice", 0, |m| {
            m["type"] == "progress" && m["stage"] == "cookies_failed"
        })
        .await;
    assert!(
        failed["message"]
            .as_str()
            .unwrap()
            .contains("chromium:Nope"),
        "{failed}"
    );
    assert!(broken.log().contains("cookie_replay_failed"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_firefox_lists_and_imports() {
    let home = temp_home();
    let (v_dom, v_host) = (planted("ffdom"), planted("ffhost"));
    let setter = cookie_setter(vec![vec![
        format!("ff_dom={v_dom}; Domain=example.test; Path=/; Max-Age=86400"),
        format!("ff_host={v_host}; Path=/; Max-Age=86400; HttpOnly; SameSite=Lax"),
        "ff_session=s; Path=/".to_string(),
    ]])
    .await;
    let mut firefox = start_firefox(
        home.path(),
        "t3st.porthole",
        "Porthole test",
        &format!("http://gist.example.test:{}/set/0", setter.port()),
    );
    let daemon = TestDaemon::start_with(daemon_options(home.path(), json!({}))).await;
    let id = "firefox:t3st.porthole";
    let listing = eventually(
        "Firefox to store its cookies",
        Duration::from_secs(60),
        || async {
            let (status, listing) = daemon.get("/api/browser/cookies/sources").await;
            assert_eq!(status, 200, "{listing}");
            let src = listing["sources"]
                .as_array()?
                .iter()
                .find(|s| s["id"] == id)?;
            let count = |name: &str| {
                src["scopes"]
                    .as_array()?
                    .iter()
                    .find(|s| s["scope"] == name)
                    .map(|s| s["count"].clone())
            };
            (count("gist.example.test") == Some(json!(1))
                && count(".example.test") == Some(json!(1)))
            .then_some(listing)
        },
    )
    .await;
    let src = source(&listing, id);
    assert_eq!(
        (src["browser"].clone(), src["name"].clone()),
        (json!("firefox"), json!("Porthole test"))
    );
    assert_eq!(scope(src, "gist.example.test")["parent"], ".example.test");

    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start("ff").await;
    let (status, outcome) = daemon
        .post(
            "/api/browser/cookies/import",
            &json!({"channel_id": "ff", "source": id, "domains": ["gist.example.test", ".example.test"]}),
        )
        .await;
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(
        outcome,
        json!({"imported": 2, "skipped_session": 0, "skipped_expired": 0})
    );
    assert!(
        matches!(firefox.0.try_wait(), Ok(None)),
        "Firefox kept running throughout"
    );
    let probe = Probe::connect(&daemon.profile_dir("ff")).await;
    let got = all_cookies(&probe.cdp).await;
    let host = cookie(&got, "ff_host");
    assert_eq!(host["value"], v_host.as_str());
    assert_eq!(
        (
            host["domain"].clone(),
            host["sameSite"].clone(),
            host["httpOnly"].clone()
        ),
        (json!("gist.example.test"), json!("Lax"), json!(true))
    );
    let dom = cookie(&got, "ff_dom");
    assert_eq!(
        (dom["value"].as_str(), dom["domain"].as_str()),
        (Some(v_dom.as_str()), Some(".example.test"))
    );
    assert!((dom["expires"].as_f64().unwrap() - now_secs() - 86400.0).abs() < 600.0);
    drop(pane);
    assert_values_never_leave(&daemon, &[listing, outcome], &[&v_dom, &v_host]);
}
