//! The installer against a real Chromium: a cookie Chrome refuses is named (never by value),
//! the others still go in, and the error says how many did.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{install, ImportError};
use crate::cdp::CdpConnection;
use crate::cookies::tests::support::{chromium_home, launch_chromium, wait_for};
use crate::cookies::{CookieParam, SameSite};

fn param(
    name: &str,
    value: &str,
    domain: &str,
    secure: bool,
    same_site: Option<SameSite>,
) -> CookieParam {
    let expires = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        + 3600.0;
    let mut c = CookieParam::new(
        domain,
        name.into(),
        value.into(),
        "/".into(),
        secure,
        false,
        None,
        expires,
    );
    // Bypass `new`'s repair on purpose: Chrome refuses SameSite=None without Secure.
    c.same_site = same_site;
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_cookie_is_named_and_the_rest_go_in() {
    let (_home, ud) = chromium_home();
    let _browser = launch_chromium(&ud, &["--password-store=basic"], &[], "about:blank");
    let file = ud.join("DevToolsActivePort");
    let url = wait_for(
        "DevToolsActivePort",
        crate::cookies::tests::support::CHROMIUM_START,
        || {
            let text = std::fs::read_to_string(&file).ok()?;
            let mut lines = text.lines();
            Some(format!(
                "ws://127.0.0.1:{}{}",
                lines.next()?.trim(),
                lines.next()?.trim()
            ))
        },
    );
    let cdp = CdpConnection::connect(&url, Duration::from_secs(20))
        .await
        .unwrap();
    let mut cookies: Vec<CookieParam> = (0..install::BATCH + 3)
        .map(|i| param(&format!("ok{i}"), "fine-value", ".good.test", false, None))
        .collect();
    // A name with `;` cannot exist in a cookie jar: Chrome refuses it.
    cookies.insert(
        7,
        param("bad;name", "SECRETVALUE", ".bad.test", false, None),
    );
    let err = install::install(&cdp, "chromium:Test", &cookies)
        .await
        .unwrap_err();
    match &err {
        ImportError::Refused {
            refused,
            installed,
            total,
            ..
        } => {
            assert_eq!(
                (*installed, *total),
                (install::BATCH + 3, install::BATCH + 4)
            );
            assert_eq!(refused.len(), 1);
            assert_eq!(
                (refused[0].name.as_str(), refused[0].scope.as_str()),
                ("bad;name", ".bad.test")
            );
        }
        other => panic!("expected Refused, got {other:?}"),
    }
    let message = err.to_string();
    assert!(message.starts_with("chromium:Test: "), "{message}");
    assert!(message.contains("\"bad;name\" on .bad.test"), "{message}");
    assert!(!message.contains("SECRETVALUE"), "{message}");
    let got = cdp
        .call("Storage.getCookies", serde_json::json!({}))
        .await
        .unwrap();
    assert_eq!(got["cookies"].as_array().unwrap().len(), install::BATCH + 3);
}
