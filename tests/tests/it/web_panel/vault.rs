//! The vault panel of the bundled pane (DESIGN.md §19), in a real headless Chromium, against a
//! `.kdbx` written by the real `keepassxc-cli`: the key button lists the sources; a wrong
//! password leaves the source locked and says so, the right one shows its items; a checkbox
//! shares an item with one of the channel's agents (its `list_logins` then has it); "Fill into
//! this tab" types it into the page, whose server receives the form. The unlock password is
//! cleared from its input and kept in no storage.

use std::time::Duration;

use porthole_tests::chromium::BareChromium;
use porthole_tests::pages::PageServer;
use porthole_tests::vault_fixture;
use porthole_tests::{eventually, TempDir};
use serde_json::json;

use super::{PanelPage, PANE};

const CHANNEL: &str = "vault-panel";
const KP_PASSWORD: &str = "panel horse battery";
const SITE_PASSWORD: &str = "p4nel-Secret-9";

/// Types `text` into the pane's element `selector` as the person would (focus, then text).
async fn type_into(panel: &PanelPage, selector: &str, text: &str) {
    let at = panel
        .center_of(&format!("{selector} to be shown"), selector)
        .await;
    panel.click_at(at).await;
    panel
        .until(
            &format!("{selector} focused"),
            &format!(
                "{PANE}.activeElement === {PANE}.querySelector({})",
                json!(selector)
            ),
        )
        .await;
    panel
        .cdp
        .call_on(&panel.session, "Input.insertText", json!({"text": text}))
        .await
        .unwrap();
}

/// The vault panel's note (what the last act came to).
async fn note(panel: &PanelPage) -> String {
    panel
        .eval(&format!(
            "{PANE}.getElementById('vault-status').textContent"
        ))
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_button_unlocks_shares_and_fills() {
    let site = PageServer::area("vault").await;
    let dir = TempDir::new("vault-panel");
    let daemon = vault_fixture::daemon_with_forum(
        dir.path(),
        KP_PASSWORD,
        SITE_PASSWORD,
        &site.url("/login.html"),
    )
    .await;
    let (agent_id, token) = daemon.add_agent(CHANNEL, "Robo", &[]).await;
    let agent = daemon.caller(&token);
    let browser = BareChromium::launch_with(&["--window-size=1100,850"]).await;
    let panel = PanelPage::open_panel(&browser, &daemon, CHANNEL).await;
    panel.show(&site.url("/login.html"), "Sign in").await;
    // The view stays on the sign-in page when the agent's first call opens its own tab.
    panel.click_in_pane("follow").await;
    panel
        .until(
            "Follow agents off",
            "window.porthole.agents.follow === false",
        )
        .await;

    // The key button: the source, locked, with its unlock form.
    panel.click_in_pane("vault-toggle").await;
    panel
        .until(
            "the locked source in the vault panel",
            &format!("{PANE}.querySelector('.vault-source[data-source=\"kp\"][data-state=\"locked\"] .vault-password')"),
        )
        .await;

    // A wrong password: said, still locked, the input emptied.
    type_into(&panel, ".vault-password", "not the password").await;
    // The input the password was typed into, kept: the panel draws a new form after the
    // answer, so only this one shows whether the sent password was cleared from its input.
    let typed = panel
        .eval(&format!(
            "(window.__typedPassword = {PANE}.querySelector('.vault-password')).value"
        ))
        .await;
    assert_eq!(typed, json!("not the password"));
    panel.key("Enter", "Enter", 13, Some("\r")).await;
    panel
        .until(
            "the wrong password's note",
            &format!(
                "{PANE}.getElementById('vault-status').textContent.includes('wrong password')"
            ),
        )
        .await;
    assert!(
        note(&panel).await.contains("stays locked"),
        "{}",
        note(&panel).await
    );
    let (_, overview) = daemon.get("/api/browser/vault").await;
    assert_eq!(overview["sources"][0]["state"], "locked", "{overview}");
    assert_eq!(
        panel
            .eval(&format!("{PANE}.querySelector('.vault-password').value"))
            .await,
        json!("")
    );
    assert_eq!(
        panel.eval("window.__typedPassword.value").await,
        json!(""),
        "the password sent stays in the input it was typed into"
    );

    // The right one: unlocked, the item listed, shared with nobody.
    type_into(&panel, ".vault-password", KP_PASSWORD).await;
    let unlock = panel
        .center_of("the Unlock button", ".vault-unlock-btn")
        .await;
    panel.click_at(unlock).await;
    panel
        .until(
            "the item of the unlocked source",
            &format!("{PANE}.querySelector('.vault-item[data-item=\"kp/Web/Forum\"]')"),
        )
        .await;
    let shared = panel
        .eval(&format!(
            "{PANE}.querySelector('.vault-item .vault-shared').textContent"
        ))
        .await;
    assert_eq!(shared, json!("Shared with no agent"));

    // Share with Robo: the agent's list_logins has it.
    let (_, text) = agent.act_text("list_logins", json!({})).await;
    assert!(
        !text.contains("kp/Web/Forum"),
        "shared before the person chose: {text}"
    );
    let choice = panel
        .center_of(
            "Robo's share box",
            &format!(".vault-share[data-agent=\"{agent_id}\"]"),
        )
        .await;
    panel.click_at(choice).await;
    panel
        .until(
            "the share saved",
            &format!("{PANE}.querySelector('.vault-item .vault-shared').textContent === 'Shared with Robo'"),
        )
        .await;
    let (_, shares) = daemon.get("/api/browser/vault/shares").await;
    assert_eq!(
        shares["shares"],
        json!([{"item": "kp/Web/Forum", "agents": [agent_id]}])
    );
    let (is_error, text) = agent.act_text("list_logins", json!({})).await;
    assert!(!is_error && text.contains("kp/Web/Forum"), "{text}");

    // Fill into this tab: typed; the person presses Enter in the page; the site receives it.
    let fill = panel.center_of("Fill into this tab", ".vault-fill").await;
    panel.click_at(fill).await;
    let result = panel
        .until("the fill's result", "window.porthole.vault.lastResult")
        .await;
    assert_eq!(result["ok"], true, "{result}");
    assert!(
        result["message"]
            .as_str()
            .unwrap()
            .contains("username and password of 'Forum'"),
        "{result}"
    );
    panel
        .eval("window.porthole.send({type: 'input', input_type: 'keypress', key: 'Enter', code: 'Enter', modifiers: 0})")
        .await;
    let sent = eventually("the form at the site", Duration::from_secs(10), || async {
        site.requests()
            .into_iter()
            .find(|r| r.starts_with("GET /welcome"))
    })
    .await;
    assert_eq!(
        sent,
        format!("GET /welcome?user=alice&pass={SITE_PASSWORD}")
    );

    // Nothing secret kept by the panel page.
    let stored = panel
        .eval("JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)])")
        .await;
    let stored = stored.as_str().unwrap_or_default();
    assert!(
        !stored.contains(KP_PASSWORD) && !stored.contains(SITE_PASSWORD),
        "{stored}"
    );
    let state = panel.eval("JSON.stringify(window.porthole.vault)").await;
    let state = state.as_str().unwrap_or_default();
    assert!(
        !state.contains(KP_PASSWORD) && !state.contains(SITE_PASSWORD),
        "{state}"
    );
}
