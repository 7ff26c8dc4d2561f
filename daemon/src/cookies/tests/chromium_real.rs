//! Chromium with `--password-store=basic` (v10 values): a profile written by the real browser,
//! read back, and the read cookies installed into a second real Chromium and compared.

use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use super::support::*;
use crate::cookies::{
    discover_sources, list_scopes, read_cookies, Browser, CookieParam, Discovery, Platform,
};

/// Cookie values planted by [`write_profile`]; each is checked after decryption.
pub const VALUES: &[(&str, &str)] = &[
    ("domain_persist", "dv1-a+b/c=="),
    ("domain_short", "dsv1"),
    ("host_only", "hv1"),
    ("lax_sub", "lv1"),
    ("session", "sv1"),
    ("planted_secure", "pv1"),
    ("chips", "cv1"),
];

pub fn value_of(name: &str) -> &'static str {
    VALUES.iter().find(|(n, _)| *n == name).unwrap().1
}

/// Has the real Chromium write a profile in `user_data_dir`: cookies set by pages of the test
/// server (`gist.example.test` resolves to it) plus two planted over CDP (`Secure` and a
/// partitioned one, which plain http cannot set), then closes it with `Browser.close`.
pub async fn write_profile(user_data_dir: &Path, extra: &[&str], env: &[(&str, &str)]) {
    let server = CookieServer::start(Box::new(|path, _host| {
        let cookies = if path == "/set" {
            vec![
                format!(
                    "domain_persist={}; Domain=example.test; Path=/; Max-Age=86400",
                    value_of("domain_persist")
                ),
                format!(
                    "domain_short={}; Domain=example.test; Path=/; Max-Age=60",
                    value_of("domain_short")
                ),
                format!(
                    "host_only={}; Path=/; Max-Age=86400; HttpOnly; SameSite=Strict",
                    value_of("host_only")
                ),
                format!(
                    "lax_sub={}; Path=/sub; Max-Age=86400; SameSite=Lax",
                    value_of("lax_sub")
                ),
                format!("session={}; Path=/", value_of("session")),
            ]
        } else {
            Vec::new()
        };
        (cookies, "<html><body>cookies</body></html>".into())
    }));
    let url = format!("http://gist.example.test:{}/set", server.port);
    let mut browser = launch_chromium(user_data_dir, extra, env, &url);
    let mut cdp = Cdp::connect(user_data_dir).await;
    wait_for_cookie_names(
        &mut cdp,
        &["domain_persist", "host_only", "lax_sub", "session"],
    )
    .await;
    let expires = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 86400;
    cdp.call(
        "Storage.setCookies",
        json!({"cookies": [
            {"name": "planted_secure", "value": value_of("planted_secure"), "domain": ".example.org",
             "path": "/", "secure": true, "httpOnly": true, "sameSite": "None", "expires": expires},
            {"name": "chips", "value": value_of("chips"), "url": "https://embed.example.org/",
             "secure": true, "sameSite": "None", "expires": expires,
             "partitionKey": {"topLevelSite": "https://top.example", "hasCrossSiteAncestor": false}},
        ]}),
    )
    .await
    .expect("planting cookies");
    wait_for_cookie_names(&mut cdp, &["planted_secure", "chips"]).await;
    cdp.close_browser().await;
    browser.wait_exit(Duration::from_secs(30));
}

/// The checks shared by the v10 and v11 tests: listing, folding, counts, and the decrypted,
/// CDP-shaped cookies of the chosen scopes. Returns the read cookies.
pub fn check_profile(home: &Path) -> Vec<CookieParam> {
    let sources = discover_sources(&Discovery::for_home(Platform::Linux, home));
    let source = sources
        .iter()
        .find(|s| s.id == "chromium:Default")
        .unwrap_or_else(|| panic!("no chromium:Default in {sources:?}"));
    assert_eq!(source.browser, Browser::Chromium);
    assert!(!source.name.is_empty());

    let scopes = list_scopes(source).unwrap();
    let row = |s: &str| {
        scopes
            .iter()
            .find(|r| r.scope == s)
            .unwrap_or_else(|| panic!("no scope {s} in {scopes:?}"))
            .clone()
    };
    assert_eq!(
        row("gist.example.test").count,
        3,
        "host_only, lax_sub, session"
    );
    assert_eq!(
        row("gist.example.test").parent.as_deref(),
        Some(".example.test")
    );
    assert_eq!(row(".example.test").count, 2);
    assert_eq!(row(".example.test").parent, None);
    assert_eq!(
        row("embed.example.org").parent.as_deref(),
        Some(".example.org")
    );
    assert_eq!(
        scopes[0].scope, "gist.example.test",
        "busiest first: {scopes:?}"
    );

    let wanted: Vec<String> = [
        "gist.example.test",
        ".example.test",
        ".example.org",
        "embed.example.org",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // An hour on: the Max-Age=60 cookie has expired by then, the others have not.
    let now = SystemTime::now() + Duration::from_secs(3600);
    let outcome = read_cookies(source, &wanted, now).unwrap();
    assert_eq!(outcome.skipped_session, 1);
    assert_eq!(outcome.skipped_expired, 1);
    let mut names: Vec<&str> = outcome.cookies.iter().map(|c| c.name.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "chips",
            "domain_persist",
            "host_only",
            "lax_sub",
            "planted_secure"
        ]
    );
    for c in &outcome.cookies {
        assert_eq!(c.value, value_of(&c.name), "value of {}", c.name);
        let debug = format!("{c:?}");
        assert!(!debug.contains(&c.value), "Debug leaks the value: {debug}");
        let in_a_day = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
            + 86400.0;
        assert!(
            (c.expires - in_a_day).abs() < 300.0,
            "{} expires {}",
            c.name,
            c.expires
        );
    }
    let json: Vec<Value> = outcome
        .cookies
        .iter()
        .map(|c| serde_json::to_value(c).unwrap())
        .collect();
    let host_only = by_name(&json, "host_only");
    assert_eq!(host_only["url"], "http://gist.example.test/");
    assert!(host_only.get("domain").is_none());
    assert_eq!(host_only["httpOnly"], true);
    assert_eq!(host_only["sameSite"], "Strict");
    assert_eq!(host_only["secure"], false);
    let lax = by_name(&json, "lax_sub");
    assert_eq!(lax["path"], "/sub");
    assert_eq!(lax["sameSite"], "Lax");
    let dom = by_name(&json, "domain_persist");
    assert_eq!(dom["domain"], ".example.test");
    assert!(dom.get("url").is_none());
    assert!(
        dom.get("sameSite").is_none(),
        "unset SameSite is omitted: {dom}"
    );
    let sec = by_name(&json, "planted_secure");
    assert_eq!(
        (sec["secure"].clone(), sec["sameSite"].clone()),
        (json!(true), json!("None"))
    );
    let chips = by_name(&json, "chips");
    assert_eq!(chips["url"], "https://embed.example.org/");
    assert_eq!(
        chips["partitionKey"],
        json!({"topLevelSite": "https://top.example", "hasCrossSiteAncestor": false})
    );
    outcome.cookies
}

/// Installs `cookies` into a fresh real Chromium with `Storage.setCookies` and checks what it
/// then reports with `Storage.getCookies`: proves the `CookieParam` shape is what CDP takes.
pub async fn install_round_trip(cookies: &[CookieParam]) {
    let (_home, ud) = chromium_home();
    let mut browser = launch_chromium(&ud, &["--password-store=basic"], &[], "about:blank");
    let mut cdp = Cdp::connect(&ud).await;
    cdp.call("Storage.setCookies", json!({ "cookies": cookies }))
        .await
        .expect("Storage.setCookies accepts the read cookies");
    let got = cdp.cookies().await;
    for c in cookies {
        let g = by_name(&got, &c.name);
        assert_eq!(g["value"], c.value.as_str(), "{}", c.name);
        let domain = c.domain.clone().unwrap_or_else(|| {
            c.url
                .as_deref()
                .unwrap()
                .split("://")
                .nth(1)
                .unwrap()
                .split('/')
                .next()
                .unwrap()
                .to_owned()
        });
        assert_eq!(g["domain"], domain.as_str(), "{}", c.name);
        assert_eq!(g["path"], c.path.as_str(), "{}", c.name);
        assert_eq!(g["secure"], c.secure, "{}", c.name);
        assert_eq!(g["httpOnly"], c.http_only, "{}", c.name);
        assert_eq!(g["session"], false, "{}", c.name);
        assert!(
            (g["expires"].as_f64().unwrap() - c.expires).abs() < 2.0,
            "{}",
            c.name
        );
        match c.same_site {
            Some(s) => assert_eq!(
                g["sameSite"],
                serde_json::to_value(s).unwrap(),
                "{}",
                c.name
            ),
            None => assert!(g.get("sameSite").is_none(), "{}: {g}", c.name),
        }
        assert_eq!(
            g.get("partitionKey").cloned(),
            c.partition_key
                .as_ref()
                .map(|k| serde_json::to_value(k).unwrap())
        );
    }
    cdp.close_browser().await;
    browser.wait_exit(Duration::from_secs(30));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_basic_store_v10_read_and_install_into_real_chromium() {
    let (home, ud) = chromium_home();
    write_profile(&ud, &["--password-store=basic"], &[]).await;
    let tags = encryption_tags(&ud.join("Default").join("Cookies"));
    assert!(
        !tags.is_empty() && tags.iter().all(|t| t == "v10"),
        "expected v10 values, got {tags:?}"
    );
    let cookies = tokio::task::spawn_blocking({
        let home = home.path().to_owned();
        move || check_profile(&home)
    })
    .await
    .unwrap();
    install_round_trip(&cookies).await;
}
