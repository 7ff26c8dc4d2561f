//! The vault's tools (DESIGN.md §19): `list_logins`, `fill_login`, `fill_totp`. Each runs as
//! the calling agent: only items the person shared with it (the owner token: every item),
//! only into fields whose frame's origin is one of the item's origins (narrowed by the
//! share), typed with trusted input ([`login_fields`]). The answer names what was filled and
//! where, never a value; a `vault` timeline event records each fill (title, origin, fields,
//! ok or why not) through the hook the daemon gives; a locked source tells the panes
//! (`vault_locked`) so the person can unlock it.
//!
//! [`login_fields`]: crate::tools::login::fields

use std::sync::Arc;

use porthole_mcp::vocabulary::{FillLoginArgs, FillTotpArgs, ToolCall};
use porthole_mcp::ToolOutput;
use serde_json::json;
use zeroize::Zeroizing;

use crate::approvals::ApprovalKind;
use crate::browser::{Actor, BrowserSession, PaneMessage};
use crate::tools::error::ToolError;
use crate::tools::login::fields::{self as login_fields, FieldKind, Target};
use crate::tools::tab::driver::Tab;
use crate::vault::ledger::Doc;
use crate::vault::origins::origin_of;
use crate::vault::{Opened, Vault, VaultError};

/// One fill as the timeline records it (never a value).
#[derive(Debug, Clone)]
pub struct FillRecord {
    pub target_id: Option<String>,
    pub title: String,
    /// The origin of the frame filled (or looked at).
    pub origin: Option<String>,
    /// `username`, `password`, `one-time code`.
    pub fields: Vec<&'static str>,
    pub ok: bool,
    /// Why not, when it was refused.
    pub why: Option<String>,
    /// The person filled it from a pane (`vault_fill`), not an agent's tool.
    pub by_person: bool,
}

/// Records a fill (the daemon writes it to the timeline).
pub type FillRecorder = Arc<dyn Fn(&Arc<BrowserSession>, &Actor, FillRecord) + Send + Sync>;

/// What the vault tools need from the daemon.
#[derive(Clone)]
pub struct VaultHooks {
    pub vault: Arc<Vault>,
    pub record: FillRecorder,
}

/// The owner token's actor (the person's fills are recorded through it, marked `by_person`).
const OWNER: &Actor = &Actor::Owner;

/// Who fills, and so which checks apply.
#[derive(Clone, Copy)]
pub(crate) enum Filler<'a> {
    /// An agent (or the owner token) through a tool: in the tab it acts in, only where it ran
    /// no `evaluate`, held to its `login` approvals.
    Tool(&'a Actor),
    /// The person at a pane, in tab `tab`: her own vault, so no share and no approval; refused
    /// where any agent of the channel (`agents`) ran `evaluate`, and after the fill each of
    /// them is kept from `evaluate` in the filled document.
    Person { tab: &'a Tab, agents: &'a [String] },
}

impl Filler<'_> {
    fn actor(&self) -> &Actor {
        match self {
            Filler::Tool(actor) => actor,
            Filler::Person { .. } => OWNER,
        }
    }

    /// The tab the fill goes into.
    async fn tab(&self, browser: &Arc<BrowserSession>) -> Result<Tab, ToolError> {
        match self {
            Filler::Tool(actor) => tab_of(browser, actor).await,
            Filler::Person { tab, .. } => {
                crate::tools::tab::world::in_new_documents(browser, &tab.session_id);
                if let Some(dialog) = browser.dialogs().open(&tab.target_id) {
                    return Err(ToolError::msg(dialog.describe()));
                }
                Ok((*tab).clone())
            }
        }
    }

    /// Records a fill (or a refusal) through the daemon's hook.
    fn record(&self, browser: &Arc<BrowserSession>, hooks: &VaultHooks, mut fill: FillRecord) {
        match self {
            Filler::Tool(actor) => fill.target_id = browser.agent_tabs().current(actor),
            Filler::Person { tab, .. } => {
                fill.target_id = Some(tab.target_id.clone());
                fill.by_person = true;
            }
        }
        (hooks.record)(browser, self.actor(), fill)
    }
}

/// Runs a vault tool; `None` hooks (the standalone mcp-host-browser) → an error result.
pub async fn run(
    browser: &Arc<BrowserSession>,
    call: &ToolCall,
    actor: &Actor,
    hooks: Option<&VaultHooks>,
) -> ToolOutput {
    let Some(hooks) = hooks else {
        return ToolOutput::error(
            "The vault's tools run in the Porthole daemon (porthole serve), where the person \
             keeps their vault; this browser server has none.",
        );
    };
    let result = match call {
        ToolCall::ListLogins(_) => list_logins(browser, actor, hooks).await,
        ToolCall::FillLogin(args) => fill_login(browser, actor, hooks, args).await,
        ToolCall::FillTotp(args) => fill_totp(browser, actor, hooks, args).await,
        _ => Err(ToolError::msg("not a vault tool")),
    };
    result.unwrap_or_else(|e| ToolOutput::error(e.to_string()))
}

fn agent_of(actor: &Actor) -> Option<&str> {
    match actor {
        Actor::Owner => None,
        Actor::Agent { id, .. } => Some(id),
    }
}

async fn tab_of(browser: &Arc<BrowserSession>, actor: &Actor) -> Result<Tab, ToolError> {
    let tab = Tab::for_actor(browser, actor).await?;
    browser.url_guard().check_tab(&tab.target_id).await?;
    crate::tools::tab::world::in_new_documents(browser, &tab.session_id);
    if let Some(dialog) = browser.dialogs().open(&tab.target_id) {
        return Err(ToolError::msg(dialog.describe()));
    }
    Ok(tab)
}

async fn list_logins(
    browser: &Arc<BrowserSession>,
    actor: &Actor,
    hooks: &VaultHooks,
) -> Result<ToolOutput, ToolError> {
    let (usable, unavailable) = hooks.vault.usable_by(agent_of(actor)).await;
    let here = match tab_of(browser, actor).await {
        Ok(tab) => tab
            .location()
            .await
            .ok()
            .and_then(|(url, _)| origin_of(&url)),
        Err(_) => None,
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
async fn yours(hooks: &VaultHooks, actor: &Actor) -> String {
    let (usable, _) = hooks.vault.usable_by(agent_of(actor)).await;
    if usable.is_empty() {
        return "none is shared with you".to_string();
    }
    usable
        .iter()
        .map(|u| u.info.item.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Opens `item` for this caller; a refusal is recorded and phrased for the model.
async fn open(
    browser: &Arc<BrowserSession>,
    actor: &Actor,
    hooks: &VaultHooks,
    item: &str,
    fields: Vec<&'static str>,
) -> Result<Opened, ToolError> {
    match hooks.vault.open_for(agent_of(actor), item).await {
        Ok(opened) => Ok(opened),
        Err(error) => {
            if let VaultError::Locked { name } = &error {
                browser.announce(PaneMessage::VaultLocked {
                    source: name.clone(),
                });
            }
            let why = match &error {
                VaultError::UnknownItem(_) => format!(
                    "No item {item:?} is shared with you. Your items: {}. Call list_logins.",
                    yours(hooks, actor).await
                ),
                other => other.to_string(),
            };
            Filler::Tool(actor).record(
                browser,
                hooks,
                FillRecord {
                    target_id: None,
                    title: item.chars().take(200).collect(),
                    origin: None,
                    fields,
                    ok: false,
                    why: Some(why.clone()),
                    by_person: false,
                },
            );
            Err(ToolError::msg(why))
        }
    }
}

/// Refuses unless every target's frame origin is one the item may go to.
fn check_origins(targets: &[Target], allowed: &[String], title: &str) -> Result<(), String> {
    for target in targets {
        if !allowed.contains(&target.origin) {
            return Err(format!(
                "Refused: the {} field {} is in a frame of {}, but '{title}' may only be filled \
                 into {}. Nothing was typed. (A look-alike site or a frame from another site \
                 never gets a login.)",
                target.kind.name(),
                target.r,
                target.origin,
                if allowed.is_empty() {
                    "no site (the item has no URL, or the share's origins exclude them all)"
                        .to_string()
                } else {
                    allowed.join(", ")
                }
            ));
        }
    }
    Ok(())
}

/// Checks, types and submits; records the outcome. The answer names what was filled and
/// where, never a value. Shared by the agents' tools and the person's `vault_fill`.
pub(crate) async fn fill(
    browser: &Arc<BrowserSession>,
    by: Filler<'_>,
    hooks: &VaultHooks,
    opened: &Opened,
    wanted: &[(FieldKind, Option<String>)],
    values: &[(FieldKind, &Zeroizing<String>)],
    submit: bool,
) -> Result<String, ToolError> {
    let actor = by.actor();
    let title = opened.entry.title.clone();
    let record = |origin: Option<String>, fields: Vec<&'static str>, why: Option<String>| {
        by.record(
            browser,
            hooks,
            FillRecord {
                target_id: None,
                title: title.clone(),
                origin,
                fields,
                ok: why.is_none(),
                why,
                by_person: false,
            },
        )
    };
    let kinds: Vec<&'static str> = wanted.iter().map(|(k, _)| k.name()).collect();
    let tab = match by.tab(browser).await {
        Ok(tab) => tab,
        Err(e) => {
            record(None, kinds, Some(e.to_string()));
            return Err(e);
        }
    };
    let targets = match login_fields::targets(&tab, wanted).await {
        Ok(t) if t.is_empty() => {
            let why = match by {
                Filler::Tool(_) => {
                    "No sign-in field was found in this page's own document (a \
                                    form in a frame from another site is not searched). Call \
                                    read_page and pass the fields' refs; nothing was typed."
                }
                Filler::Person { .. } => {
                    "No sign-in field was found in this page's own \
                                          document (a form in a frame from another site is not \
                                          searched); nothing was typed. Open the sign-in page \
                                          and fill again."
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
    if let Err(why) = check_origins(&targets, &opened.origins, &title) {
        tracing::info!(event = "vault_fill_refused", channel_id = %browser.channel(), agent_id = actor.id(), reason = "origin");
        let frame = targets
            .iter()
            .find(|t| !opened.origins.contains(&t.origin))
            .map(|t| t.origin.clone());
        record(frame, filled, Some(why.clone()));
        return Err(ToolError::msg(why));
    }
    let scripted = match by {
        Filler::Tool(actor) => {
            crate::tools::script_guard::fill_refusal(browser, hooks, actor, &opened.origins).await
        }
        Filler::Person { agents, .. } => {
            crate::tools::script_guard::person_fill_refusal(browser, hooks, agents, &opened.origins)
                .await
        }
    };
    if let Some(why) = scripted {
        tracing::info!(event = "vault_fill_refused", channel_id = %browser.channel(), agent_id = actor.id(), reason = "evaluate");
        record(origin, filled, Some(why.clone()));
        return Err(ToolError::msg(why));
    }
    // An agent held to `login` approvals waits for the person (the card names the item and
    // the fields, never a value). The person is not asked about her own fill.
    if let Filler::Tool(actor) = by {
        let detail = format!(
            "{} of '{title}' into {}",
            filled.join(" and "),
            origin.clone().unwrap_or_default()
        );
        if let Err(why) = browser
            .approvals()
            .approve_act(
                actor.id(),
                ApprovalKind::Login,
                &tab.target_id,
                None,
                detail,
            )
            .await
        {
            tracing::info!(event = "vault_fill_refused", channel_id = %browser.channel(), agent_id = actor.id(), reason = "approval");
            record(origin, filled, Some(why.clone()));
            return Err(ToolError::msg(why));
        }
    }
    // From the first key on, the document counts as filled (evaluate is refused there: by the
    // filling agent's, or after the person's fill by every agent's of the channel).
    let mut seen_origins: Vec<&String> = Vec::new();
    for target in &targets {
        if !seen_origins.contains(&&target.origin) {
            seen_origins.push(&target.origin);
            if let Some(doc) =
                crate::tools::script_guard::doc_of(&tab, Some(target.origin.clone())).await
            {
                match by {
                    Filler::Tool(_) => hooks.vault.documents.filled(doc),
                    Filler::Person { agents, .. } => {
                        for agent in agents {
                            hooks.vault.documents.filled(Doc {
                                agent: agent.clone(),
                                ..doc.clone()
                            });
                        }
                    }
                }
            }
        }
    }
    for target in &targets {
        let Some((_, value)) = values.iter().find(|(k, _)| *k == target.kind) else {
            continue;
        };
        // From the first key on, the page may echo it: every later answer is scanned.
        if target.kind != FieldKind::Username {
            hooks
                .vault
                .filled
                .remember(browser.channel().as_str(), value);
        }
        if let Err(e) = login_fields::type_into(&tab, target, value).await {
            record(origin, filled, Some(e.to_string()));
            return Err(e);
        }
    }
    if submit {
        login_fields::press_enter(&tab).await?;
    }
    tracing::info!(event = "vault_filled", channel_id = %browser.channel(), agent_id = actor.id(), by_person = matches!(by, Filler::Person { .. }), fields = filled.len());
    record(origin.clone(), filled.clone(), None);
    let refs: Vec<&str> = targets.iter().map(|t| t.r.as_str()).collect();
    let what = match filled.as_slice() {
        [one] => format!("the {one}"),
        many => format!("the {}", many.join(" and ")),
    };
    let what = if filled == ["one-time code"] {
        "a one-time code".to_string()
    } else {
        what
    };
    Ok(format!(
        "Filled {what} of '{title}' into {} ({}){}.",
        refs.join(", "),
        origin.unwrap_or_default(),
        if submit { ", then pressed Enter" } else { "" }
    ))
}

/// A login fill's fields (the username when the item has one, and the password; a ref each
/// when given, else found) and the values that go into them.
pub(crate) type LoginFill<'o> = (
    Vec<(FieldKind, Option<String>)>,
    [(FieldKind, &'o Zeroizing<String>); 2],
);

/// What a login fill of `opened` types, and where; an item without a password is refused.
pub(crate) fn login_wanted(
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

async fn fill_login(
    browser: &Arc<BrowserSession>,
    actor: &Actor,
    hooks: &VaultHooks,
    args: &FillLoginArgs,
) -> Result<ToolOutput, ToolError> {
    let opened = open(
        browser,
        actor,
        hooks,
        &args.item,
        vec!["username", "password"],
    )
    .await?;
    let (wanted, values) = login_wanted(
        &opened,
        args.username_ref.clone(),
        args.password_ref.clone(),
    )?;
    fill(
        browser,
        Filler::Tool(actor),
        hooks,
        &opened,
        &wanted,
        &values,
        args.submit.unwrap_or(false),
    )
    .await
    .map(ToolOutput::text)
}

async fn fill_totp(
    browser: &Arc<BrowserSession>,
    actor: &Actor,
    hooks: &VaultHooks,
    args: &FillTotpArgs,
) -> Result<ToolOutput, ToolError> {
    let opened = open(browser, actor, hooks, &args.item, vec!["one-time code"]).await?;
    let code = match &opened.entry.totp {
        Some(Ok(spec)) => spec.code_now(),
        Some(Err(e)) => {
            return Err(ToolError::msg(format!(
                "Item '{}': {e}.",
                opened.entry.title
            )))
        }
        None => {
            return Err(ToolError::msg(format!(
                "Item '{}' has no one-time code seed (otp / TOTP Seed).",
                opened.entry.title
            )))
        }
    };
    let wanted = [(FieldKind::Code, args.element_ref.clone())];
    fill(
        browser,
        Filler::Tool(actor),
        hooks,
        &opened,
        &wanted,
        &[(FieldKind::Code, &code)],
        args.submit.unwrap_or(false),
    )
    .await
    .map(ToolOutput::text)
}
