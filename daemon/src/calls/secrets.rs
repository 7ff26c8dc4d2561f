//! Script and secrets never share a document (DESIGN.md §19), and a secret never comes back:
//! - a fill goes only into frames of the item's origins, in pages of those origins only
//!   ([`Secrets::check_origins`]: another site around the form could take its focus), and a
//!   fill with `submit` only into a form that sends it there ([`Secrets::check_destination`]);
//! - a fill is refused in a live document of the item's origins where the filling agent (or,
//!   for the person's fill, any agent of the channel) ran `evaluate` since it loaded;
//! - after a fill, `evaluate` is refused in documents of the filled origins while a filled
//!   document lives, and a document counts as scripted from the moment an `evaluate` starts
//!   there ([`Secrets::before_script`]);
//! - a document whose state cannot be read counts as still there (fails closed);
//! - every answer is scanned, and each secret filled in the channel is replaced by `[secret]`
//!   ([`Secrets::scrub`]); the tools' filters and waits match the scrubbed text
//!   ([`Secrets::redact`]), so no guess at part of a secret is ever answered "found".
//!
//! Which document a tab shows is its main frame's loader id and origin (`Page.getFrameTree`);
//! the vault's ledger remembers documents, this layer asks the browser which still live.
//! Porthole's own isolated-world reads are not agent script and are not counted.

use std::sync::Arc;

use porthole_mcp::vocabulary::ToolCall;
use porthole_mcp::{Content, ToolOutput};
use serde_json::json;

use crate::browser::{Actor, BrowserSession};
use crate::channel_id::ChannelId;
use crate::tools::{Redact, Tab, Target, ToolError};
use crate::vault::scan::SecretKind;
use crate::vault::{Doc, Vault};

/// Why a fill or an `evaluate` is refused when the channel's ledger has no room.
const LEDGER_FULL: &str = "Refused: this channel has more open pages where script ran or a \
     login was filled than Porthole keeps track of, and it never forgets an open one to make \
     room. Close tabs (or navigate them elsewhere) and try again.";

/// The vault's rules for the calls of one entry point.
#[derive(Clone)]
pub(crate) struct Secrets {
    vault: Arc<Vault>,
}

impl Secrets {
    pub(crate) fn new(vault: Arc<Vault>) -> Self {
        Self { vault }
    }

    /// The vault the fills open items of.
    pub(crate) fn vault(&self) -> &Arc<Vault> {
        &self.vault
    }

    /// Before `call` runs in `tab`: an `evaluate` is refused in a document of an origin that
    /// was filled while a filled document of it lives, and in a document Porthole cannot read
    /// (it fails closed). Otherwise its document counts as scripted from now on, before the
    /// script starts: a fill that comes while it runs (an awaiting listener) is refused there.
    pub(crate) async fn before_script(&self, tab: &Tab, call: &ToolCall) -> Result<(), ToolError> {
        if !matches!(call, ToolCall::Evaluate(_)) {
            return Ok(());
        }
        let browser = &tab.browser;
        // A fill of this moment either sealed the document already or sees this mark.
        let _marking = self.vault.marking().await;
        let filled = self
            .vault
            .filled_for(browser.channel().as_str(), tab.actor.id());
        let Some(doc) = doc_of(tab, None).await else {
            // The document cannot be read: refused while any filled document may still live.
            if let Some(filled) = self.live(browser, filled).await.into_iter().next() {
                tracing::info!(event = "vault_evaluate_refused", channel_id = %browser.channel(), agent_id = tab.actor.id(), reason = "unreadable");
                return Err(ToolError::msg(format!(
                    "Refused: Porthole could not tell which page this tab shows, and a login was \
                     filled into a page of {} that may still be open (tab {}), so evaluate is \
                     refused until that page is gone (navigated away or closed).",
                    filled.origin, filled.target
                )));
            }
            return Ok(());
        };
        let filled: Vec<Doc> = filled
            .into_iter()
            .filter(|d| d.origin == doc.origin)
            .collect();
        if let Some(filled) = self.live(browser, filled).await.into_iter().next() {
            tracing::info!(event = "vault_evaluate_refused", channel_id = %browser.channel(), agent_id = tab.actor.id());
            return Err(ToolError::msg(format!(
                "Refused: a login was filled into a page of {} that is still open (tab {}) (by \
                 you, or by the person for your tab), so evaluate is refused in pages of that \
                 site until that page is gone (navigated away or closed), because script and \
                 secrets never share a page.",
                filled.origin, filled.target
            )));
        }
        // The code may run (or start, even when it fails): the document is scripted from now.
        // No room to note it: no script (a fill there later could not know).
        if !self
            .noted(browser, || self.vault.note_scripted(doc.clone()))
            .await
        {
            tracing::info!(event = "vault_evaluate_refused", channel_id = %browser.channel(), agent_id = tab.actor.id(), reason = "ledger_full");
            return Err(ToolError::msg(LEDGER_FULL));
        }
        Ok(())
    }

    /// Before a CDP door client's command that runs or reads script in `tab`'s document
    /// (DESIGN.md §21, "Vault"): refused while a filled document lives there — this document
    /// (any frame's origin: a client's script may run in any of its frames) or one of the same
    /// origin, as for `evaluate` — and when the document cannot be read while a filled one may
    /// live; otherwise the document counts as scripted from now on, before the command is sent.
    /// `Err`: what the client reads.
    pub(crate) async fn before_door_script(&self, tab: &Tab) -> Result<(), String> {
        let browser = &tab.browser;
        let _marking = self.vault.marking().await;
        let filled = self
            .vault
            .filled_for(browser.channel().as_str(), tab.actor.id());
        let Some(doc) = doc_of(tab, None).await else {
            if let Some(filled) = self.live(browser, filled).await.into_iter().next() {
                tracing::info!(event = "vault_door_script_refused", channel_id = %browser.channel(), agent_id = tab.actor.id(), reason = "unreadable");
                return Err(format!(
                    "Porthole could not tell which page this tab shows, and a login was filled \
                     into a page of {} that may still be open (tab {}): script and value reads \
                     through the CDP door are refused until that page is gone (navigated away \
                     or closed)",
                    filled.origin, filled.target
                ));
            }
            return Ok(());
        };
        let filled: Vec<Doc> = filled
            .into_iter()
            .filter(|d| {
                d.origin == doc.origin || (d.target == doc.target && d.loader == doc.loader)
            })
            .collect();
        if let Some(filled) = self.live(browser, filled).await.into_iter().next() {
            tracing::info!(event = "vault_door_script_refused", channel_id = %browser.channel(), agent_id = tab.actor.id());
            return Err(format!(
                "a login was filled into a page of {} that is still open (tab {}), so script \
                 and value reads through the CDP door are refused in that page and pages of \
                 its site until it is gone (navigated away or closed): script and secrets \
                 never share a page (input, navigation and screenshots still work)",
                filled.origin, filled.target
            ));
        }
        if !self
            .noted(browser, || self.vault.note_scripted(doc.clone()))
            .await
        {
            tracing::info!(event = "vault_door_script_refused", channel_id = %browser.channel(), agent_id = tab.actor.id(), reason = "ledger_full");
            return Err(LEDGER_FULL.to_string());
        }
        Ok(())
    }

    /// The CDP door's command `send` that runs or reads script in `tab`, under
    /// [`Self::before_door_script`]'s rule, costing the client no round trip of its own when no
    /// filled document can refuse it (no login is filled for this agent in the channel, and
    /// the ledger has room): then the document is read on the client's own session
    /// `client_session`, sent just before the command (Chrome runs a session's commands in
    /// order, so the document read is the one the command runs in), and noted as scripted
    /// the moment that answer is in, before the vault's lock is let go, so a fill that waits
    /// on the lock sees the mark. Otherwise the document is read and checked first, as
    /// [`Self::before_door_script`] does. `Err`: what the client reads (nothing was sent).
    pub(crate) async fn door_script<T>(
        &self,
        tab: &Tab,
        client_session: &str,
        send: impl std::future::Future<Output = T>,
    ) -> Result<T, String> {
        let browser = &tab.browser;
        let channel = browser.channel().as_str();
        let marking = self.vault.marking().await;
        let nothing_filled = self.vault.filled_for(channel, tab.actor.id()).is_empty();
        if !nothing_filled || !self.vault.has_scripted_room(channel) {
            drop(marking);
            self.before_door_script(tab).await?;
            return Ok(send.await);
        }
        let read = browser
            .cdp()
            .call_on(client_session, "Page.getFrameTree", json!({}));
        let note = async move {
            let doc = read.await.ok().and_then(|tree| doc_in(tab, &tree));
            if let Some(doc) = doc {
                // Room was there under the lock; only a list filled meanwhile outside it
                // could refuse.
                if !self
                    .noted(browser, || self.vault.note_scripted(doc.clone()))
                    .await
                {
                    tracing::warn!(event = "vault_door_script_unnoted", channel_id = %browser.channel(), agent_id = tab.actor.id(), reason = "ledger_full");
                }
            }
            drop(marking);
        };
        // Both sent in the first poll, the read first.
        let ((), sent) = tokio::join!(biased; note, send);
        Ok(sent)
    }

    /// Why a fill of an item with `origins` by `actor` is refused: it ran `evaluate` in a live
    /// document of one of them.
    async fn fill_refusal(
        &self,
        browser: &Arc<BrowserSession>,
        actor: &Actor,
        origins: &[String],
    ) -> Option<String> {
        let doc = self.scripted(browser, &[actor.id()], origins).await?;
        Some(format!(
            "Refused: you ran evaluate in a page of {} that is still open (tab {}) since it \
             loaded, and a script of yours there could read what is typed. Script and secrets \
             never share a document: load the page again (navigate or reload) and fill without \
             evaluate. Nothing was typed.",
            doc.origin, doc.target
        ))
    }

    /// Why the person's fill of an item with `origins` is refused: one of the channel's
    /// `agents` ran `evaluate` in a live document of one of them (its script could be waiting
    /// there).
    async fn person_fill_refusal(
        &self,
        browser: &Arc<BrowserSession>,
        agents: &[String],
        origins: &[String],
    ) -> Option<String> {
        let agents: Vec<&str> = agents.iter().map(String::as_str).collect();
        let doc = self.scripted(browser, &agents, origins).await?;
        Some(format!(
            "Refused: agent {} ran a script (evaluate) in a page of {} that is still open (tab \
             {}), and that script could read what is typed. Reload the page, then fill again. \
             Nothing was typed.",
            doc.agent, doc.origin, doc.target
        ))
    }

    /// Refuses unless every target's frame origin is one the item `title` may go to.
    pub(crate) fn check_origins(
        targets: &[Target],
        allowed: &[String],
        title: &str,
    ) -> Result<(), String> {
        for target in targets {
            // A page of another site around the field could take its focus between the check
            // and the typing, and get the keys: every document up to the tab's page must be
            // of the item's origins too.
            if let Some(around) = target.ancestors.iter().find(|a| !allowed.contains(a)) {
                return Err(format!(
                    "Refused: the {} field {} is in a frame of {} inside a page of {around}, \
                     and a page of another site around a sign-in form could take its focus \
                     and receive what is typed. '{title}' is filled only where every page \
                     around the form is of {}. Nothing was typed. Open the sign-in page \
                     itself (navigate to the frame's address), or ask the person to add \
                     {around} to the item's URLs.",
                    target.kind.name(),
                    target.r,
                    target.origin,
                    allowed.join(", ")
                ));
            }
            if !allowed.contains(&target.origin) {
                return Err(format!(
                    "Refused: the {} field {} is in a frame of {}, but '{title}' may only be \
                     filled into {}. Nothing was typed. (A look-alike site or a frame from \
                     another site never gets a login.)",
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

    /// Refuses a fill with `submit` whose form would go to `url` (of origin `destination`)
    /// when that leaves the item's `allowed` origins; the answer says where it would have gone.
    pub(crate) fn check_destination(
        url: &str,
        destination: &str,
        allowed: &[String],
        title: &str,
    ) -> Result<(), String> {
        if allowed.iter().any(|a| a == destination) {
            return Ok(());
        }
        Err(format!(
            "Refused: pressing Enter there would send the form to {url} ({destination}), but \
             '{title}' may only go to {}. Nothing was typed. Fill without submit if the page \
             sends it somewhere else on purpose, and let the person decide.",
            if allowed.is_empty() {
                "no site".to_string()
            } else {
                allowed.join(", ")
            }
        ))
    }

    /// Seals `tab`'s documents of `origins` for each of `agents` (from now on `evaluate` is
    /// refused there) unless one of `agents` ran script in a live document of the item's
    /// `allowed` origins; in one step, so an `evaluate` of the same moment either came first
    /// (and the fill is refused) or is refused itself. `Err`: the refusal. `Ok`: the documents
    /// sealed, to [`Secrets::unseal`] if the fill stops before any key is typed.
    pub(crate) async fn seal(
        &self,
        tab: &Tab,
        origins: &[&String],
        allowed: &[String],
        agents: &[String],
        by_person: bool,
    ) -> Result<Vec<Doc>, String> {
        let browser = &tab.browser;
        let _marking = self.vault.marking().await;
        let scripted = if by_person {
            self.person_fill_refusal(browser, agents, allowed).await
        } else {
            self.fill_refusal(browser, &tab.actor, allowed).await
        };
        if let Some(why) = scripted {
            return Err(why);
        }
        let mut sealed = Vec::new();
        for origin in origins {
            if let Some(doc) = doc_of(tab, Some(origin.to_string())).await {
                for agent in agents {
                    let doc = Doc {
                        agent: agent.clone(),
                        ..doc.clone()
                    };
                    if !self
                        .noted(browser, || self.vault.note_filled(doc.clone()))
                        .await
                    {
                        self.vault.unseal(&sealed);
                        return Err(LEDGER_FULL.to_string());
                    }
                    sealed.push(doc);
                }
            }
        }
        Ok(sealed)
    }

    /// Undoes [`Secrets::seal`] for a fill that stopped before any key was typed.
    pub(crate) fn unseal(&self, sealed: &[Doc]) {
        self.vault.unseal(sealed);
    }

    /// Remembers a secret about to be typed in `channel`: from its first key on, the page may
    /// echo it, so every later answer is scanned for it. `Err`: the channel's scan is full,
    /// and the fill must not type (the scan never forgets a password to make room).
    pub(crate) fn remember(
        &self,
        channel: &ChannelId,
        secret: &str,
        kind: SecretKind,
    ) -> Result<(), String> {
        self.vault
            .remember_secret(channel.as_str(), secret, kind)
            .map_err(|full| full.to_string())
    }

    /// What the tools' filters and waits in `channel` see of a text: scrubbed as the answer
    /// will be, so a guess at part of a secret never matches.
    pub(crate) fn redact(&self, channel: &ChannelId) -> Redact {
        let (vault, channel) = (self.vault.clone(), channel.to_string());
        Redact::with(move |text| vault.scrub(&channel, text))
    }

    /// Replaces every secret filled in `channel` by `[secret]` in the answer's text, and says
    /// that it did.
    pub(crate) fn scrub(&self, channel: &ChannelId, output: &mut ToolOutput) {
        let mut replaced = false;
        for content in &mut output.content {
            if let Content::Text { text } = content {
                if let Some(clean) = self.vault.scrub(channel.as_str(), text) {
                    *text = clean;
                    replaced = true;
                }
            }
        }
        if replaced {
            output.content.push(Content::Text {
                text: format!(
                    "Note: a secret filled in this channel was replaced by {} in this answer.",
                    crate::vault::scan::MARK
                ),
            });
        }
    }

    /// Notes a document with `note`; when the channel's ledger is full, forgets its gone
    /// documents and tries once more. `false`: still no room (nothing live was forgotten).
    async fn noted(
        &self,
        browser: &BrowserSession,
        note: impl Fn() -> Result<(), crate::vault::ledger::LedgerFull>,
    ) -> bool {
        if note().is_ok() {
            return true;
        }
        let all = self.vault.documents_of(browser.channel().as_str());
        self.live(browser, all).await;
        note().is_ok()
    }

    /// The live ones of `docs`; the ledger notes the others as departed (navigated away: the
    /// back/forward cache may bring them back) or forgets them (their tab closed), and notes
    /// departed ones shown again as back. A document is gone only when its tab is gone or
    /// shows another document; a read that fails (a busy renderer, a timeout) counts as still
    /// there, never as gone.
    async fn live(&self, browser: &BrowserSession, docs: Vec<Doc>) -> Vec<Doc> {
        let (mut alive, mut away, mut closed) = (Vec::new(), Vec::new(), Vec::new());
        // What each tab shows now, read once per tab (`None`: unreadable, so still there).
        let mut shown: std::collections::HashMap<String, Option<Option<String>>> =
            std::collections::HashMap::new();
        for doc in docs {
            if !shown.contains_key(&doc.target) {
                let now = match browser.tab_session(&doc.target) {
                    Some(session) => document_of(browser, &session)
                        .await
                        .map(|(loader, _)| Some(loader)),
                    None => Some(None),
                };
                shown.insert(doc.target.clone(), now);
            }
            match &shown[&doc.target] {
                None => alive.push(doc),
                Some(Some(loader)) if *loader == doc.loader => alive.push(doc),
                Some(Some(_)) => away.push(doc),
                Some(None) => closed.push(doc),
            }
        }
        self.vault.depart_documents(&away);
        self.vault.forget_documents(&closed);
        self.vault.documents_back(&alive);
        alive
    }

    /// A live document of `origins` where one of `agents` ran `evaluate` in this channel.
    async fn scripted(
        &self,
        browser: &Arc<BrowserSession>,
        agents: &[&str],
        origins: &[String],
    ) -> Option<Doc> {
        let docs: Vec<Doc> = agents
            .iter()
            .flat_map(|agent| self.vault.scripted_by(browser.channel().as_str(), agent))
            .filter(|d| origins.contains(&d.origin))
            .collect();
        self.live(browser, docs).await.into_iter().next()
    }
}

/// `(loader id, origin)` of the document tab session `session` shows now.
async fn document_of(browser: &BrowserSession, session: &str) -> Option<(String, String)> {
    let tree = browser
        .cdp()
        .call_on(session, "Page.getFrameTree", json!({}))
        .await
        .ok()?;
    document_in(&tree)
}

/// `(loader id, origin)` of the main frame of a `Page.getFrameTree` answer.
fn document_in(tree: &serde_json::Value) -> Option<(String, String)> {
    let frame = &tree["frameTree"]["frame"];
    Some((
        frame["loaderId"].as_str()?.to_string(),
        frame["securityOrigin"]
            .as_str()
            .unwrap_or("null")
            .to_string(),
    ))
}

/// The main frame's document of `tab` in a `Page.getFrameTree` answer, as the ledger keeps it.
fn doc_in(tab: &Tab, tree: &serde_json::Value) -> Option<Doc> {
    let (loader, origin) = document_in(tree)?;
    Some(Doc {
        channel: tab.browser.channel().to_string(),
        agent: tab.actor.id().to_string(),
        target: tab.target_id.clone(),
        loader,
        origin,
    })
}

/// The document `tab` shows now, as the ledger keeps it (`origin`: the filled frame's, else
/// the main frame's).
async fn doc_of(tab: &Tab, origin: Option<String>) -> Option<Doc> {
    let (loader, top_origin) = document_of(&tab.browser, &tab.session_id).await?;
    Some(Doc {
        channel: tab.browser.channel().to_string(),
        agent: tab.actor.id().to_string(),
        target: tab.target_id.clone(),
        loader,
        origin: origin.unwrap_or(top_origin),
    })
}
