//! The person's own fill (DESIGN.md §19, a pane's `vault_fill`): an item of her vault into a
//! tab she watches. The same fill as the agents' `fill_login` ([`login::fill`]): fields found
//! in the page, the origin of each field's frame checked against the item's origins, trusted
//! typing, the secret remembered for the channel's scan. Not asked of her: a share (the vault
//! is hers) or a `login` approval (she is the one who approves). Refused where an agent of the
//! channel ran `evaluate` in a live document of the item's origins; after the fill, those
//! agents' `evaluate` is refused in the filled document. The outcome names what was filled and
//! where, never a value.
//!
//! [`login::fill`]: crate::tools::login::vault_tools::fill

use std::sync::Arc;

use crate::browser::{Actor, BrowserSession};
use crate::tools::login::fields::FieldKind;
use crate::tools::login::vault_tools::{self as login, FillRecord, Filler, VaultHooks};
use crate::tools::tab::driver::Tab;
use crate::vault::VaultError;

/// The longest item name looked up (longer ones are not items).
const MAX_ITEM: usize = 1000;
/// How many item names a refusal lists.
const LISTED: usize = 20;

/// What became of the person's fill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PersonFill {
    /// Filled: what and where.
    Filled(String),
    /// Not filled, and why (nothing was typed).
    Refused(String),
    /// The item's source is locked: the person can unlock it and fill again.
    Locked { source: String, message: String },
}

/// Fills `item` into tab `target_id` (its flat CDP session `session_id`) for the person.
/// `agents`: the ids of the channel's agents (their `evaluate` is checked and then held off).
pub async fn fill_for_person(
    browser: &Arc<BrowserSession>,
    hooks: &VaultHooks,
    (target_id, session_id): (String, String),
    item: &str,
    agents: &[String],
) -> PersonFill {
    let tab = Tab {
        browser: browser.clone(),
        target_id,
        session_id,
        actor: Actor::Owner,
    };
    let by = Filler::Person { tab: &tab, agents };
    if item.trim().is_empty() || item.len() > MAX_ITEM || item.chars().any(char::is_control) {
        return PersonFill::Refused(format!(
            "{:?} is not an item name: an item is <source>/<path>, as the vault lists them \
             (GET /api/browser/vault). Nothing was typed.",
            item.chars().take(80).collect::<String>()
        ));
    }
    let opened = match hooks.vault.open_for(None, item).await {
        Ok(opened) => opened,
        Err(error) => {
            let outcome = match &error {
                VaultError::Locked { name } => PersonFill::Locked {
                    source: name.clone(),
                    message: format!(
                        "{error}. Unlock it with its password, then fill again. Nothing was typed."
                    ),
                },
                VaultError::UnknownItem(_) => PersonFill::Refused(format!(
                    "There is no item {item:?} in the vault's unlocked sources ({}). Nothing \
                     was typed.",
                    items(hooks).await
                )),
                other => PersonFill::Refused(format!("{other}. Nothing was typed.")),
            };
            let why = match &outcome {
                PersonFill::Locked { message, .. } | PersonFill::Refused(message) => {
                    message.clone()
                }
                PersonFill::Filled(_) => String::new(),
            };
            (hooks.record)(
                browser,
                &Actor::Owner,
                FillRecord {
                    target_id: Some(tab.target_id.clone()),
                    title: item.chars().take(200).collect(),
                    origin: None,
                    fields: vec!["username", "password"],
                    ok: false,
                    why: Some(why),
                    by_person: true,
                },
            );
            return outcome;
        }
    };
    let filled = if opened.entry.password.is_some() {
        match login::login_wanted(&opened, None, None) {
            Ok((wanted, values)) => {
                login::fill(browser, by, hooks, &opened, &wanted, &values, false).await
            }
            Err(e) => Err(e),
        }
    } else if let Some(Ok(spec)) = &opened.entry.totp {
        // An item with only a seed: its current code, into the page's one-time code field.
        let code = spec.code_now();
        let wanted = [(FieldKind::Code, None)];
        login::fill(
            browser,
            by,
            hooks,
            &opened,
            &wanted,
            &[(FieldKind::Code, &code)],
            false,
        )
        .await
    } else {
        Err(crate::tools::error::ToolError::msg(format!(
            "Item '{}' has no password and no one-time code seed to fill.",
            opened.entry.title
        )))
    };
    match filled {
        Ok(what) => PersonFill::Filled(what),
        Err(e) => PersonFill::Refused(e.to_string()),
    }
}

/// The unlocked items, for an "unknown item" answer.
async fn items(hooks: &VaultHooks) -> String {
    let (usable, locked) = hooks.vault.usable_by(None).await;
    let mut names: Vec<&str> = usable.iter().map(|u| u.info.item.as_str()).collect();
    let more = names.len().saturating_sub(LISTED);
    names.truncate(LISTED);
    let mut text = if names.is_empty() {
        "none is unlocked".to_string()
    } else {
        format!("items: {}", names.join(", "))
    };
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    if !locked.is_empty() {
        text.push_str(&format!("; locked: {}", locked.join(", ")));
    }
    text
}
