//! The person's own fill (DESIGN.md §19, a pane's `vault_fill`): an item of her vault into a
//! tab she watches, through the layers that apply to her: the tab's gate, the vault's rules and
//! the timeline; never admission, oversight or an approval (she is the one who approves). The
//! same fill as the agents' `fill_login` ([`fill::fill`]): fields found
//! in the page, the origin of each field's frame checked against the item's origins, trusted
//! typing, the secret remembered for the channel's scan. Not asked of her: a share (the vault
//! is hers) or a `login` approval (she is the one who approves). Refused where an agent of the
//! channel ran `evaluate` in a live document of the item's origins; after the fill, those
//! agents' `evaluate` is refused in the filled document. The outcome names what was filled and
//! where, never a value.
//!
//! [`fill::fill`]: super::fill::fill

use std::sync::Arc;

use super::fill::{self, FillLayers, Filler};
use super::record::Record;
use super::secrets::Secrets;
use crate::browser::{Actor, BrowserSession};
use crate::tools::{self, FieldKind, Tab, ToolError};
use crate::vault::{FillRecord, Vault, VaultError};

/// The longest item name looked up (longer ones are not items).
const MAX_ITEM: usize = 1000;
/// How many item names a refusal lists.
const LISTED: usize = 20;

/// What became of the person's fill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PersonFill {
    /// Filled: what and where.
    Filled(String),
    /// Not filled, and why (nothing was typed).
    Refused(String),
    /// The item's source is locked: the person can unlock it and fill again.
    Locked { source: String, message: String },
}

/// Fills `item` into tab `target_id` (its flat CDP session `session_id`) for the person.
/// `agents`: the ids of the channel's agents (their `evaluate` is checked and then held off).
pub(crate) async fn fill_for_person(
    browser: &Arc<BrowserSession>,
    secrets: &Secrets,
    record: &Record,
    (target_id, session_id): (String, String),
    item: &str,
    agents: &[String],
) -> PersonFill {
    let layers = FillLayers {
        secrets,
        record: Some(record),
    };
    let tab = Tab {
        browser: browser.clone(),
        target_id,
        session_id,
        actor: Actor::Owner,
        redact: crate::tools::Redact::none(),
    };
    let by = Filler::Person { tab: &tab, agents };
    if item.trim().is_empty() || item.len() > MAX_ITEM || item.chars().any(char::is_control) {
        return PersonFill::Refused(format!(
            "{:?} is not an item name: an item is <source>/<path>, as the vault lists them \
             (GET /api/browser/vault). Nothing was typed.",
            item.chars().take(80).collect::<String>()
        ));
    }
    let opened = match secrets.vault().open_for(None, item).await {
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
                    items(secrets.vault()).await
                )),
                other => PersonFill::Refused(format!("{other}. Nothing was typed.")),
            };
            let why = match &outcome {
                PersonFill::Locked { message, .. } | PersonFill::Refused(message) => {
                    message.clone()
                }
                PersonFill::Filled(_) => String::new(),
            };
            let refused = FillRecord {
                target_id: None,
                title: item.chars().take(200).collect(),
                origin: None,
                fields: vec!["username", "password"],
                ok: false,
                why: Some(why),
                by_person: true,
            };
            layers.record(browser, by, refused);
            return outcome;
        }
    };
    let filled = if opened.entry.password.is_some() {
        match tools::login_wanted(&opened, None, None) {
            Ok((wanted, values)) => {
                fill::fill(&layers, browser, by, &opened, &wanted, &values, false).await
            }
            Err(e) => Err(e),
        }
    } else if let Some(Ok(spec)) = &opened.entry.totp {
        // An item with only a seed: its current code, into the page's one-time code field.
        let code = spec.code_now();
        let wanted = [(FieldKind::Code, None)];
        fill::fill(
            &layers,
            browser,
            by,
            &opened,
            &wanted,
            &[(FieldKind::Code, &code)],
            false,
        )
        .await
    } else {
        Err(ToolError::msg(format!(
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
async fn items(vault: &Vault) -> String {
    let (usable, locked) = vault.usable_by(None).await;
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
