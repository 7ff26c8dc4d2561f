//! A vault fill through the layers (DESIGN.md §19), for the agents' `list_logins`,
//! `fill_login` and `fill_totp` and for the person's own `vault_fill`: the acting tab
//! ([`gate`]), the item opened for this caller (only items shared with it; the owner token and
//! the person: every item), the fields found in the page ([`tools`]), each field's frame origin
//! checked against the item's and no script where it types ([`Secrets`]), the `login` approval
//! for an agent ([`consent`]), the trusted typing, and one `vault` timeline event for the fill
//! or its refusal ([`Record`]). The answer names what was filled and where, never a value; a
//! locked source tells the panes (`vault_locked`) so the person can unlock it.
//!
//! [`gate`]: super::gate
//! [`consent`]: super::consent

use std::sync::Arc;

use porthole_mcp::vocabulary::{FillLoginArgs, FillTotpArgs, ToolCall};
use porthole_mcp::ToolOutput;
use zeroize::Zeroizing;

use super::record::Record;
use super::secrets::Secrets;
use super::{consent, gate};
use crate::browser::{Actor, BrowserSession, PaneMessage};
use crate::tools::{self, FieldKind, Tab, ToolError};
use crate::vault::scan::SecretKind;
use crate::vault::{FillRecord, Opened, VaultError};

/// Who fills, and so which checks apply.
#[derive(Clone, Copy)]
pub(super) enum Filler<'a> {
    /// An agent (or the owner token) through a tool: in the tab it acts in, only where it ran
    /// no `evaluate`, held to its `login` approvals.
    Tool(&'a Actor),
    /// The person at a pane, in tab `tab`: her own vault, so no share and no approval; refused
    /// where any agent of the channel (`agents`) ran `evaluate`, and after the fill each of
    /// them is kept from `evaluate` in the filled document.
    Person { tab: &'a Tab, agents: &'a [String] },
}

/// The layers a fill passes (the vault's rules, and the timeline when there is one).
pub(super) struct FillLayers<'a> {
    pub(super) secrets: &'a Secrets,
    pub(super) record: Option<&'a Record>,
}

impl FillLayers<'_> {
    /// Records a fill (or a refusal) made `by` someone in `browser`.
    pub(super) fn record(
        &self,
        browser: &Arc<BrowserSession>,
        by: Filler<'_>,
        mut fill: FillRecord,
    ) {
        let Some(record) = self.record else {
            return;
        };
        let actor = match by {
            Filler::Tool(actor) => {
                fill.target_id = browser.agent_tabs().current(actor);
                actor
            }
            Filler::Person { tab, .. } => {
                fill.target_id = Some(tab.target_id.clone());
                fill.by_person = true;
                &Actor::Owner
            }
        };
        record.fill(browser, actor, fill);
    }
}

/// Runs a vault tool (`list_logins`, `fill_login`, `fill_totp`) for `actor`.
pub(super) async fn vault_tool(
    layers: &FillLayers<'_>,
    session: &Arc<BrowserSession>,
    actor: &Actor,
    call: &ToolCall,
) -> Result<ToolOutput, ToolError> {
    match call {
        ToolCall::ListLogins(_) => {
            let tab = gate::enter_for_vault(session, actor).await.ok();
            tools::list_logins(layers.secrets.vault(), actor, tab.as_ref()).await
        }
        ToolCall::FillLogin(args) => fill_login(layers, session, actor, args).await,
        ToolCall::FillTotp(args) => fill_totp(layers, session, actor, args).await,
        _ => Err(ToolError::msg("not a vault tool")),
    }
}

async fn fill_login(
    layers: &FillLayers<'_>,
    session: &Arc<BrowserSession>,
    actor: &Actor,
    args: &FillLoginArgs,
) -> Result<ToolOutput, ToolError> {
    let fields = vec!["username", "password"];
    let opened = open(layers, session, actor, &args.item, fields).await?;
    let (wanted, values) = tools::login_wanted(
        &opened,
        args.username_ref.clone(),
        args.password_ref.clone(),
    )?;
    let submit = args.submit.unwrap_or(false);
    let by = Filler::Tool(actor);
    fill(layers, session, by, &opened, &wanted, &values, submit)
        .await
        .map(ToolOutput::text)
}

async fn fill_totp(
    layers: &FillLayers<'_>,
    session: &Arc<BrowserSession>,
    actor: &Actor,
    args: &FillTotpArgs,
) -> Result<ToolOutput, ToolError> {
    let opened = open(layers, session, actor, &args.item, vec!["one-time code"]).await?;
    let title = &opened.entry.title;
    let code = match &opened.entry.totp {
        Some(Ok(spec)) => spec.code_now(),
        Some(Err(e)) => return Err(ToolError::msg(format!("Item '{title}': {e}."))),
        None => {
            return Err(ToolError::msg(format!(
                "Item '{title}' has no one-time code seed (otp / TOTP Seed)."
            )))
        }
    };
    let wanted = [(FieldKind::Code, args.element_ref.clone())];
    let values = [(FieldKind::Code, &code)];
    let submit = args.submit.unwrap_or(false);
    fill(
        layers,
        session,
        Filler::Tool(actor),
        &opened,
        &wanted,
        &values,
        submit,
    )
    .await
    .map(ToolOutput::text)
}

/// Opens `item` for `actor`; a refusal is recorded and phrased for the model.
async fn open(
    layers: &FillLayers<'_>,
    session: &Arc<BrowserSession>,
    actor: &Actor,
    item: &str,
    fields: Vec<&'static str>,
) -> Result<Opened, ToolError> {
    let vault = layers.secrets.vault();
    let error = match vault.open_for(tools::agent_of(actor), item).await {
        Ok(opened) => return Ok(opened),
        Err(error) => error,
    };
    if let VaultError::Locked { name } = &error {
        session.announce(PaneMessage::VaultLocked {
            source: name.clone(),
        });
    }
    let why = match &error {
        VaultError::UnknownItem(_) => format!(
            "No item {item:?} is shared with you. Your items: {}. Call list_logins.",
            tools::yours(vault, actor).await
        ),
        other => other.to_string(),
    };
    let record = FillRecord {
        target_id: None,
        title: item.chars().take(200).collect(),
        origin: None,
        fields,
        ok: false,
        why: Some(why.clone()),
        by_person: false,
    };
    layers.record(session, Filler::Tool(actor), record);
    Err(ToolError::msg(why))
}

/// Checks, types and submits; records the outcome. The answer names what was filled and
/// where, never a value. Shared by the agents' tools and the person's `vault_fill`.
pub(super) async fn fill(
    layers: &FillLayers<'_>,
    browser: &Arc<BrowserSession>,
    by: Filler<'_>,
    opened: &Opened,
    wanted: &[(FieldKind, Option<String>)],
    values: &[(FieldKind, &Zeroizing<String>)],
    submit: bool,
) -> Result<String, ToolError> {
    let actor = match by {
        Filler::Tool(actor) => actor,
        Filler::Person { .. } => &Actor::Owner,
    };
    let title = opened.entry.title.clone();
    let record = |origin: Option<String>, fields: Vec<&'static str>, why: Option<String>| {
        let fill = FillRecord {
            target_id: None,
            title: title.clone(),
            origin,
            fields,
            ok: why.is_none(),
            why,
            by_person: false,
        };
        layers.record(browser, by, fill)
    };
    let kinds: Vec<&'static str> = wanted.iter().map(|(k, _)| k.name()).collect();
    let entered = match by {
        Filler::Tool(actor) => gate::enter_for_vault(browser, actor).await,
        Filler::Person { tab, .. } => gate::enter_for_person(tab).map(|()| tab.clone()),
    };
    let tab = match entered {
        Ok(tab) => tab,
        Err(e) => {
            record(None, kinds, Some(e.to_string()));
            return Err(e);
        }
    };
    let targets = match tools::login_targets(&tab, wanted).await {
        Ok(t) if t.is_empty() => {
            let why = match by {
                Filler::Tool(_) => {
                    "No sign-in field was found in this page's own document (a form in a frame \
                     from another site is not searched). Call read_page and pass the fields' \
                     refs; nothing was typed."
                }
                Filler::Person { .. } => {
                    "No sign-in field was found in this page's own document (a form in a frame \
                     from another site is not searched); nothing was typed. Open the sign-in \
                     page and fill again."
                }
            }
            .to_string();
            record(None, kinds, Some(why.clone()));
            return Err(ToolError::msg(why));
        }
        Ok(t) => t,
        Err(e) => {
            record(None, kinds, Some(e.to_string()));
            return Err(e);
        }
    };
    let origin = targets.first().map(|t| t.origin.clone());
    let filled: Vec<&'static str> = targets.iter().map(|t| t.kind.name()).collect();
    if let Err(why) = Secrets::check_origins(&targets, &opened.origins, &title) {
        tracing::info!(event = "vault_fill_refused", channel_id = %browser.channel(), agent_id = actor.id(), reason = "origin");
        let frame = targets
            .iter()
            .find(|t| !opened.origins.contains(&t.origin))
            .map(|t| t.origin.clone());
        record(frame, filled, Some(why.clone()));
        return Err(ToolError::msg(why));
    }
    // Where Enter sends the form, for a fill that submits: one of the item's origins only.
    if let (true, Some(last)) = (submit, targets.last()) {
        let checked = match tools::form_destination(&tab, last).await {
            Ok(Some((url, to))) => Secrets::check_destination(&url, &to, &opened.origins, &title),
            Ok(None) => Ok(()),
            Err(e) => Err(e.to_string()),
        };
        if let Err(why) = checked {
            tracing::info!(event = "vault_fill_refused", channel_id = %browser.channel(), agent_id = actor.id(), reason = "destination");
            record(origin, filled, Some(why.clone()));
            return Err(ToolError::msg(why));
        }
    }
    // No script where it types, and from here on none there: checked and sealed in one step
    // (evaluate is refused in the filled documents: the filling agent's, or after the person's
    // fill every agent's of the channel), before any approval wait.
    let secrets = layers.secrets;
    let sealed_for: Vec<String> = match by {
        Filler::Tool(actor) => vec![actor.id().to_string()],
        Filler::Person { agents, .. } => agents.to_vec(),
    };
    let mut origins: Vec<&String> = Vec::new();
    for target in &targets {
        if !origins.contains(&&target.origin) {
            origins.push(&target.origin);
        }
    }
    let by_person = matches!(by, Filler::Person { .. });
    let sealed = match secrets
        .seal(&tab, &origins, &opened.origins, &sealed_for, by_person)
        .await
    {
        Ok(sealed) => sealed,
        Err(why) => {
            tracing::info!(event = "vault_fill_refused", channel_id = %browser.channel(), agent_id = actor.id(), reason = "evaluate");
            record(origin, filled, Some(why.clone()));
            return Err(ToolError::msg(why));
        }
    };
    // An agent held to `login` approvals waits for the person (the card names the item and
    // the fields, never a value). The person is not asked about her own fill.
    if let Filler::Tool(_) = by {
        let detail = format!(
            "{} of '{title}' into {}",
            filled.join(" and "),
            origin.clone().unwrap_or_default()
        );
        if let Err(why) = consent::approve_login(&tab, detail).await {
            tracing::info!(event = "vault_fill_refused", channel_id = %browser.channel(), agent_id = actor.id(), reason = "approval");
            secrets.unseal(&sealed);
            record(origin, filled, Some(why.clone()));
            return Err(ToolError::msg(why));
        }
    }
    // From the first key on, the page may echo a secret: every later answer is scanned for
    // it. Kept before anything is typed; no room refuses the whole fill.
    for target in &targets {
        let Some((_, value)) = values.iter().find(|(k, _)| *k == target.kind) else {
            continue;
        };
        let kind = match target.kind {
            FieldKind::Username => continue,
            FieldKind::Password => SecretKind::Password,
            FieldKind::Code => SecretKind::Code,
        };
        if let Err(why) = secrets.remember(browser.channel(), value, kind) {
            tracing::info!(event = "vault_fill_refused", channel_id = %browser.channel(), agent_id = actor.id(), reason = "scan_full");
            secrets.unseal(&sealed);
            record(origin, filled, Some(why.clone()));
            return Err(ToolError::msg(why));
        }
    }
    for target in &targets {
        let Some((_, value)) = values.iter().find(|(k, _)| *k == target.kind) else {
            continue;
        };
        if let Err(e) = tools::type_into(&tab, target, value).await {
            record(origin, filled, Some(e.to_string()));
            return Err(e);
        }
    }
    if submit {
        tools::press_enter(&tab).await?;
    }
    tracing::info!(event = "vault_filled", channel_id = %browser.channel(), agent_id = actor.id(), by_person = matches!(by, Filler::Person { .. }), fields = filled.len());
    record(origin.clone(), filled.clone(), None);
    let refs: Vec<&str> = targets.iter().map(|t| t.r.as_str()).collect();
    let what = match filled.as_slice() {
        ["one-time code"] => "a one-time code".to_string(),
        [one] => format!("the {one}"),
        many => format!("the {}", many.join(" and ")),
    };
    Ok(format!(
        "Filled {what} of '{title}' into {} ({}){}.",
        refs.join(", "),
        origin.unwrap_or_default(),
        if submit { ", then pressed Enter" } else { "" }
    ))
}
