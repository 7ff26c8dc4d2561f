//! No filter or wait is an oracle on a filled secret (DESIGN.md §19a; the vault review's V7):
//! `read_console_messages`' pattern, `read_network_requests`' URL pattern, `wait_for_text`
//! and `wait_for_selector` match what the answer would show, secrets scrubbed. A guess at the
//! start of the password gets the same answer as a wrong guess; the same filter without the
//! guess matches, proving the page did echo the secret where the probe looked.

use serde_json::json;

use super::tools::{unlocked_forum, Unlocked, SITE_PASSWORD};

#[tokio::test(flavor = "multi_thread")]
async fn filters_and_waits_never_match_a_filled_secret() {
    let Unlocked {
        site,
        _dir,
        daemon: _daemon,
        agent,
        ..
    } = unlocked_forum("guesser").await;
    // The echoing page paints, logs, fetches and mirrors into `value` what the fill types.
    agent
        .act_ok("navigate", json!({"url": site.url("/echo.html")}))
        .await;
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
        .await;
    assert!(!is_error, "{text}");
    let right = &SITE_PASSWORD[..4];
    let wrong = "zq8z";

    // The console: the echo is there (shown scrubbed), a guess never matches.
    let (is_error, text) = agent
        .act_text("read_console_messages", json!({"pattern": "typed {\"v\":"}))
        .await;
    assert!(
        !is_error && text.contains("[secret]") && !text.contains(SITE_PASSWORD),
        "the control finds the echo: {text}"
    );
    for guess in [right, wrong] {
        let pattern = format!("typed {{\"v\":\"{guess}");
        let (_, text) = agent
            .act_text("read_console_messages", json!({ "pattern": pattern }))
            .await;
        assert!(
            text.starts_with("No console messages match"),
            "console pattern {pattern:?}: {text}"
        );
    }

    // The network log: the page's fetch carries the password in its URL.
    let (_, text) = agent
        .act_text("read_network_requests", json!({"url_pattern": "/echo?v="}))
        .await;
    assert!(
        text.contains("/echo?v=[secret]"),
        "the control finds the fetch: {text}"
    );
    for guess in [right, wrong] {
        let pattern = format!("/echo?v={guess}");
        let (_, text) = agent
            .act_text("read_network_requests", json!({ "url_pattern": pattern }))
            .await;
        assert!(
            text.starts_with("No network requests match"),
            "url pattern {pattern:?}: {text}"
        );
    }

    // wait_for_text: the painted echo is found, a guess at the secret in it never is.
    let (is_error, text) = agent
        .act_text(
            "screenshot",
            json!({"wait_for_text": "You typed ", "wait_timeout_ms": 2000}),
        )
        .await;
    assert!(!is_error, "the control finds the echo: {text}");
    for guess in [right, wrong] {
        let needle = format!("You typed {guess}");
        let (is_error, text) = agent
            .act_text(
                "screenshot",
                json!({"wait_for_text": needle, "wait_timeout_ms": 600}),
            )
            .await;
        assert!(is_error && text.contains("Timed out"), "{needle:?}: {text}");
    }

    // wait_for_selector: the page mirrors both fields into `value`; the user name is found by
    // it, the password never.
    let (is_error, text) = agent
        .act_text(
            "screenshot",
            json!({"wait_for_selector": "#user[value^='ali']", "wait_timeout_ms": 2000}),
        )
        .await;
    assert!(
        !is_error,
        "the control finds the mirrored user name: {text}"
    );
    for guess in [right, wrong] {
        let selector = format!("#pass[value^='{guess}']");
        let (is_error, text) = agent
            .act_text(
                "screenshot",
                json!({"wait_for_selector": selector, "wait_timeout_ms": 600}),
            )
            .await;
        assert!(
            is_error && text.contains("Timed out"),
            "{selector:?}: {text}"
        );
    }
}
