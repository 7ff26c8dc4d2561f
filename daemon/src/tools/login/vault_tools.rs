//! The vault's tools on a tab (DESIGN.md §19), their mechanics only: `list_logins` (the items
//! shared with the caller, each saying whether it matches the tab's page), the items a caller
//! may use, and what a login fill types and where. Which fills may happen, the person's
//! approval and the timeline's record are the call pipeline's (`calls`).

use porthole_mcp::ToolOutput;
use serde_json::json;
use zeroize::Zeroizing;

use crate::browser::Actor;
use crate::tools::error::ToolError;
use crate::tools::login::fields::FieldKind;
use crate::tools::tab::driver::Tab;
use crate::vault::origins::origin_of;
use crate::vault::{Opened, Vault};

/// The agent id of `actor` (`None` for the owner token, which may use every item).
pub fn agent_of(actor: &Actor) -> Option<&str> {
    match actor {
        Actor::Owner => None,
        Actor::Agent { id, .. } => Some(id),
    }
}

/// `list_logins`: the items shared with `actor`, each saying whether it matches the page of
/// `tab` (the tab it acts in, when it has one it may use).
pub async fn list_logins(
    vault: &Vault,
    actor: &Actor,
    tab: Option<&Tab>,
) -> Result<ToolOutput, ToolError> {
    let (usable, unavailable) = vault.usable_by(agent_of(actor)).await;
    let here = match tab {
        Some(tab) => tab
            .location()
            .await
            .ok()
            .and_then(|(url, _)| origin_of(&url)),
        None => None,
    };
    let logins: Vec<_> = usable
        .iter()
        .map(|u| {
            json!({
                "item": u.info.item,
                "title": u.info.title,
                "username": u.info.username,
                "origins": u.origins,
                "has_totp": u.info.has_totp,
                "matches_tab": here.as_ref().is_some_and(|h| u.origins.contains(h)),
            })
        })
        .collect();
    let mut answer = json!({ "logins": logins });
    if !unavailable.is_empty() {
        answer["unavailable"] = json!(unavailable
            .iter()
            .map(|s| format!(
                "{s}: locked or unreadable; the person can unlock it in the Porthole pane"
            ))
            .collect::<Vec<_>>());
    }
    Ok(ToolOutput::text(answer.to_string()))
}

/// The items this caller may use, for "unknown item" answers.
pub async fn yours(vault: &Vault, actor: &Actor) -> String {
    let (usable, _) = vault.usable_by(agent_of(actor)).await;
    if usable.is_empty() {
        return "none is shared with you".to_string();
    }
    usable
        .iter()
        .map(|u| u.info.item.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A login fill's fields (the username when the item has one, and the password; a ref each
/// when given, else found) and the values that go into them.
pub type LoginFill<'o> = (
    Vec<(FieldKind, Option<String>)>,
    [(FieldKind, &'o Zeroizing<String>); 2],
);

/// What a login fill of `opened` types, and where; an item without a password is refused.
pub fn login_wanted(
    opened: &Opened,
    username_ref: Option<String>,
    password_ref: Option<String>,
) -> Result<LoginFill<'_>, ToolError> {
    let Some(password) = opened.entry.password.as_ref() else {
        return Err(ToolError::msg(format!(
            "Item '{}' has no password to fill.",
            opened.entry.title
        )));
    };
    let mut wanted = vec![(FieldKind::Password, password_ref)];
    if !opened.entry.username.is_empty() {
        wanted.insert(0, (FieldKind::Username, username_ref));
    }
    let values = [
        (FieldKind::Username, &opened.entry.username),
        (FieldKind::Password, password),
    ];
    Ok((wanted, values))
}
