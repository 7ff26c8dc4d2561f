//! `tools/list`: all canonical tools with schemas, within the token budget; aliases only when
//! enabled.

use porthole_mcp::ToolName;

use crate::harness::connect;
use crate::stub::Stub;

#[tokio::test]
async fn lists_all_tools_with_schemas_and_no_aliases_by_default() {
    let stub = Stub::start().await;
    let client = connect(&stub.url(), "chan-1", &[]).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    let expected: Vec<&str> = ToolName::ALL.iter().map(|t| t.as_str()).collect();
    assert_eq!(names, expected);
    // The token budget (DESIGN.md §7): the whole tools/list result, as the client gets it.
    let bytes = serde_json::to_string(&serde_json::json!({ "tools": tools }))
        .unwrap()
        .len();
    eprintln!("tools/list: {} tools, {bytes} bytes of JSON", tools.len());
    assert!(
        bytes <= 12_000,
        "tools/list is {bytes} bytes; the budget is 12000"
    );
    for tool in &tools {
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        assert!(
            tool.description.as_deref().is_some_and(|d| d.len() > 20),
            "{} has a description",
            tool.name
        );
    }
    let navigate = tools.iter().find(|t| t.name == "navigate").unwrap();
    let props = navigate.input_schema["properties"].as_object().unwrap();
    for arg in [
        "url",
        "wait_for_selector",
        "wait_for_text",
        "wait_timeout_ms",
    ] {
        assert!(props.contains_key(arg), "navigate has {arg}");
    }
    assert_eq!(props["wait_timeout_ms"]["maximum"], 60000);
    assert_eq!(
        navigate.input_schema["required"],
        serde_json::json!(["url"])
    );
    let computer = tools.iter().find(|t| t.name == "computer").unwrap();
    let actions = computer.input_schema["properties"]["action"].to_string();
    for action in [
        "left_click",
        "left_click_drag",
        "triple_click",
        "scroll",
        "key",
        "wait",
    ] {
        assert!(actions.contains(action), "computer offers {action}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn playwright_aliases_are_listed_when_enabled() {
    let stub = Stub::start().await;
    let client = connect(&stub.url(), "chan-1", &["--playwright-aliases"]).await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), ToolName::ALL.len() + 14);
    let click = tools.iter().find(|t| t.name == "browser_click").unwrap();
    let props = click.input_schema["properties"].as_object().unwrap();
    for arg in ["element", "ref", "target"] {
        assert!(props.contains_key(arg), "browser_click has {arg}");
    }
    client.cancel().await.unwrap();
}
