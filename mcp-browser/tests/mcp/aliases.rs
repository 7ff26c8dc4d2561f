//! Playwright MCP aliases: translated into canonical calls with the option on, unknown with it
//! off.

use serde_json::json;

use crate::harness::{call, connect, is_error, text};
use crate::stub::Stub;

#[tokio::test]
async fn aliases_translate_into_canonical_calls() {
    let stub = Stub::start().await;
    let client = connect(&stub.url(), "chan-1", &["--playwright-aliases"]).await;

    let r = call(
        &client,
        "browser_click",
        json!({"element": "Sign in", "ref": "e7"}),
    )
    .await;
    assert!(!is_error(&r), "{}", text(&r));
    let r = call(
        &client,
        "browser_click",
        json!({"element": "Sign in", "target": "e8"}),
    )
    .await;
    assert!(!is_error(&r), "{}", text(&r));
    let r = call(
        &client,
        "browser_type",
        json!({"element": "Email", "ref": "e3", "text": "a@b.c", "submit": true}),
    )
    .await;
    assert!(!is_error(&r), "{}", text(&r));
    let r = call(
        &client,
        "browser_tabs",
        json!({"action": "select", "index": 0}),
    )
    .await;
    assert!(!is_error(&r), "{}", text(&r));
    let r = call(
        &client,
        "browser_navigate",
        json!({"url": "http://127.0.0.1:1/"}),
    )
    .await;
    assert!(!is_error(&r), "{}", text(&r));

    let sent: Vec<_> = stub
        .bodies()
        .into_iter()
        .map(|b| (b["tool"].as_str().unwrap().to_owned(), b["args"].clone()))
        .collect();
    assert_eq!(
        sent,
        vec![
            (
                "computer".into(),
                json!({"action": "left_click", "ref": "e7"})
            ),
            (
                "computer".into(),
                json!({"action": "left_click", "ref": "e8"})
            ),
            ("form_input".into(), json!({"ref": "e3", "value": "a@b.c"})),
            ("computer".into(), json!({"action": "key", "text": "Enter"})),
            ("switch_tab".into(), json!({"tab": 1})),
            ("navigate".into(), json!({"url": "http://127.0.0.1:1/"})),
        ]
    );

    // A Playwright-shaped mistake names the argument and sends nothing.
    let r = call(&client, "browser_select_option", json!({"ref": "e1"})).await;
    assert!(is_error(&r));
    assert!(
        text(&r).contains("missing required argument `values`"),
        "{}",
        text(&r)
    );
    assert_eq!(stub.requests().len(), 6);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn aliases_are_unknown_without_the_option() {
    let stub = Stub::start().await;
    let client = connect(&stub.url(), "chan-1", &[]).await;
    let r = call(&client, "browser_click", json!({"ref": "e7"})).await;
    assert!(is_error(&r));
    let t = text(&r);
    assert!(t.contains("Unknown tool `browser_click`"), "{t}");
    assert!(t.contains("--playwright-aliases"), "{t}");
    assert!(stub.requests().is_empty());
    client.cancel().await.unwrap();
}
