//! HTTP authentication in a session's browser (`Fetch.authRequired`): every challenge (a
//! `401`/`407` with `WWW-Authenticate` or `Proxy-Authenticate`) goes to the panes as
//! `auth_prompt`, and only a person answers it (`auth_answer`); an agent on that tab is told to
//! call `request_human`. While no pane is attached a prompt is cancelled after 60 s (the page
//! then shows the server's 401 page), so no request waits forever on nobody.
//!
//! Cost: `Fetch.enable {handleAuthRequests}` needs request patterns, and a request matching
//! one is paused until continued. Measured on Chromium 156: only requests matching a pattern
//! get `authRequired` (a pattern that matches nothing leaves a challenged navigation hanging),
//! so the patterns are `{urlPattern: "*", resourceType: "Document"}` at the browser target:
//! one pause per document (top-level navigations and iframes), none per image, script or
//! XHR. Every paused request is continued at once, untouched (from a task, so the event loop
//! never waits). Measured (Chromium 156, a CDP client continuing at once, a loaded 2-core
//! machine, medians of 40 and 20 interleaved loads): a page with one image loads in 76 ms
//! without Fetch, 92 ms with these patterns (1 pause), 93 ms pausing everything (2 pauses); a
//! page with 200 images in 1180 / 1455 / 1460 ms (1 vs 201 pauses; fastest runs 637 / 894 /
//! 1021 ms). Most of the cost is Fetch being on at all; each further pause adds about 0.6 ms.
//! Once an agent of the session is held to `submit`, data requests are paused too (XHR —
//! which is how Chromium 156 reports `fetch` and `EventSource` —, `Fetch` — prefetch —, `Ping`,
//! `EventSource`, `CSPViolationReport`); once an agent has site rules, every request of every
//! type is (`urlPattern: "*"` with no type), so a refused site gets no image, script, font or
//! beacon either (docs/measured-network.md: what Chromium pauses; a WebSocket handshake is
//! never paused). The scope follows the agents' rules as they change ([`PauseScope`]), and
//! stays documents-only while no agent has rules. Host mode is left alone (the
//! browser-wide domain would pause the user's own tabs). Credentials never reach a log: what
//! is logged is the prompt's id, tab, origin and outcome.
//!
//! Owns the open prompts and turning `Fetch` on (`session.auth()`); the events of `Fetch` are
//! followed by the session's `paused`, which hands each challenge here.

use std::sync::{Arc, Weak};
use std::time::Duration;

use serde_json::json;

use crate::browser::floor::{PaneMessage, Prompt, Registry, SessionCore, SessionError};
use crate::cdp::CdpEvent;

/// How long an agent's call waits for the session to turn `Fetch` on.
const FETCH_START_DEADLINE: Duration = Duration::from_secs(15);

/// How long a prompt waits while no pane is attached.
pub const UNWATCHED_PROMPT: Duration = Duration::from_secs(60);

/// An authentication challenge waiting for the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthPrompt {
    pub id: String,
    /// Chrome's id of the paused request.
    request_id: String,
    pub target_id: String,
    pub url: String,
    pub origin: String,
    pub realm: String,
    pub scheme: String,
}

impl AuthPrompt {
    /// The `auth_prompt` message for panes.
    pub fn message(&self) -> PaneMessage {
        PaneMessage::AuthPrompt {
            id: self.id.clone(),
            target_id: self.target_id.clone(),
            url: self.url.clone(),
            origin: self.origin.clone(),
            realm: self.realm.clone(),
            scheme: self.scheme.clone(),
        }
    }

    /// What an agent acting on the tab is told.
    pub fn describe_for_agent(&self) -> String {
        format!(
            "The page in this tab asks for a login: {} wants a user name and password ({} \
             authentication{}). Only the person at the browser can answer it: call \
             request_human with a reason (for example \"please log in to {}\"), then go on.",
            self.origin,
            self.scheme,
            if self.realm.is_empty() {
                String::new()
            } else {
                format!(", realm {:?}", self.realm)
            },
            self.origin,
        )
    }
}

impl Prompt for AuthPrompt {
    const PREFIX: &'static str = "a";
}

/// How a prompt is answered.
pub enum AuthAnswer {
    Credentials { username: String, password: String },
    Cancel,
}

impl std::fmt::Debug for AuthAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AuthAnswer::Credentials { .. } => "Credentials(…)",
            AuthAnswer::Cancel => "Cancel",
        })
    }
}

/// The open prompts of a session.
#[derive(Debug, Default)]
pub struct AuthPrompts {
    /// The open prompts, oldest first.
    open: Registry<AuthPrompt>,
    /// Bumped whenever a prompt opens (what [`Auth::prompt_opens`] waits on).
    opened: tokio::sync::watch::Sender<u64>,
    /// What `Fetch` pauses now, `None` while it is off (serialises turning it on and changing
    /// its patterns).
    fetch_enabled: tokio::sync::Mutex<Option<PauseScope>>,
    /// Whether the network layer holds agents' tabs to their rules (what an agent's call
    /// waits for before it acts, see [`Auth::request_pauses_on`]).
    fetch: tokio::sync::watch::Sender<FetchState>,
}

/// Which requests `Fetch` pauses, from what the agents' rules need (the session's `paused`
/// decides which).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::browser) enum PauseScope {
    /// Documents only (top-level loads and frames): no agent has site rules or `submit`.
    Documents,
    /// Documents and data requests: an agent is held to `submit`.
    DataToo,
    /// Every request of every type: an agent has site rules.
    Everything,
}

impl PauseScope {
    /// `Fetch.enable`'s patterns for this scope.
    fn patterns(self) -> Vec<serde_json::Value> {
        let typed = |kind: &str| json!({ "urlPattern": "*", "resourceType": kind });
        match self {
            PauseScope::Documents => vec![typed("Document")],
            PauseScope::DataToo => [
                "Document",
                "XHR",
                "Fetch",
                "Ping",
                "EventSource",
                "CSPViolationReport",
            ]
            .into_iter()
            .map(typed)
            .collect(),
            PauseScope::Everything => vec![json!({ "urlPattern": "*" })],
        }
    }
}

/// Whether `Fetch` pauses the session's requests, so agents' rules hold at the network layer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum FetchState {
    /// The session is turning it on.
    #[default]
    Starting,
    /// On: every document request (and more, see [`PauseScope`]) is paused and decided.
    On,
    /// Never used here (host mode: the browser-wide domain would pause the user's own tabs).
    NotUsed,
    /// Turning it on or widening it failed: agents with rules are refused, never let through.
    Failed(String),
}

/// Why an answer failed; the text is for the person.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("no login prompt {0} is open (it was answered or cancelled, or its page went away)")]
    NoPrompt(String),
    #[error(transparent)]
    Session(#[from] SessionError),
}

impl AuthError {
    /// A stable snake_case code for panes.
    pub fn code(&self) -> &'static str {
        match self {
            AuthError::NoPrompt(_) => "no_auth_prompt",
            AuthError::Session(e) => e.code(),
        }
    }
}

/// The login prompts of one session (borrowed from the session: `session.auth()`). It
/// borrows the `Arc`s, for the task that cancels an unwatched prompt.
pub(crate) struct Auth<'s> {
    core: &'s Arc<SessionCore>,
    prompts: &'s Arc<AuthPrompts>,
}

impl<'s> Auth<'s> {
    pub(in crate::browser) fn new(
        core: &'s Arc<SessionCore>,
        prompts: &'s Arc<AuthPrompts>,
    ) -> Self {
        Self { core, prompts }
    }

    /// Pauses the requests `scope` names at `Fetch`, with HTTP authentication. `first` is the
    /// session's opening; later calls only change what is paused, and only once the opening
    /// enabled it (host mode never enables it). `scope` is read under the lock that orders
    /// these calls, so the last one sent reads the newest rules. Nothing is sent when that
    /// scope is paused already.
    pub(in crate::browser) async fn enable_request_pauses(
        &self,
        first: bool,
        scope: impl FnOnce() -> PauseScope,
    ) -> Result<(), SessionError> {
        let mut enabled = self.prompts.fetch_enabled.lock().await;
        let scope = scope();
        if (!first && enabled.is_none()) || *enabled == Some(scope) {
            return Ok(());
        }
        let enabled_now = self
            .core
            .cdp()
            .call(
                "Fetch.enable",
                json!({ "handleAuthRequests": true, "patterns": scope.patterns() }),
            )
            .await;
        if let Err(error) = enabled_now {
            self.prompts
                .fetch
                .send_replace(FetchState::Failed(error.to_string()));
            return Err(error.into());
        }
        *enabled = Some(scope);
        self.prompts.fetch.send_replace(FetchState::On);
        Ok(())
    }

    /// Says that this session never pauses requests (host mode).
    pub(in crate::browser) fn request_pauses_unused(&self) {
        self.prompts.fetch.send_replace(FetchState::NotUsed);
    }

    /// Pauses what `scope` names from now on (the agents' rules changed). A failure refuses
    /// agents' calls from then on (see [`Self::request_pauses_on`]).
    pub(in crate::browser) async fn rescope_request_pauses(
        &self,
        scope: impl FnOnce() -> PauseScope,
    ) {
        if let Err(error) = self.enable_request_pauses(false, scope).await {
            tracing::warn!(event = "request_pauses_not_changed", channel_id = %self.core.channel(), %error);
        }
    }

    /// Waits until the session's network layer is on (or known unused); the error, for an
    /// agent held to rules, when turning it on failed: its rules could not hold, so it may not
    /// act (fail closed).
    pub(crate) async fn request_pauses_on(&self) -> Result<(), String> {
        let mut state = self.prompts.fetch.subscribe();
        let settled = tokio::time::timeout(
            FETCH_START_DEADLINE,
            state.wait_for(|s| *s != FetchState::Starting),
        )
        .await;
        let state = match settled {
            Ok(Ok(state)) => state.clone(),
            Ok(Err(_)) => FetchState::Failed("the session ended".to_string()),
            Err(_) => {
                FetchState::Failed(format!("not on after {} s", FETCH_START_DEADLINE.as_secs()))
            }
        };
        match state {
            FetchState::On | FetchState::NotUsed => Ok(()),
            FetchState::Starting => unreachable!("waited for a state other than Starting"),
            FetchState::Failed(error) => Err(format!(
                "Porthole could not turn on the network checks that hold this agent to its                  sites and approvals in this channel's browser ({error}), so it refuses this                  agent's calls rather than let its tabs load unchecked. Ask the person to                  restart the channel's browser (stop and start it from a pane)."
            )),
        }
    }

    /// Opens a prompt for a challenge (`Fetch.authRequired`) and tells every pane.
    pub(in crate::browser) fn required(&self, event: &CdpEvent) {
        let p = &event.params;
        let Some(request_id) = p["requestId"].as_str() else {
            return;
        };
        let frame = p["frameId"].as_str().unwrap_or_default();
        let target_id = self
            .core
            .tabs()
            .tab_of_frame(frame)
            .map_or_else(|| frame.to_string(), |t| t.target_id);
        let challenge = &p["authChallenge"];
        let prompt = AuthPrompt {
            id: self.prompts.open.mint(),
            request_id: request_id.to_string(),
            target_id,
            url: p["request"]["url"].as_str().unwrap_or_default().to_string(),
            origin: challenge["origin"].as_str().unwrap_or_default().to_string(),
            realm: challenge["realm"].as_str().unwrap_or_default().to_string(),
            scheme: challenge["scheme"]
                .as_str()
                .unwrap_or_default()
                .to_ascii_lowercase(),
        };
        tracing::info!(event = "auth_prompt_opened", channel_id = %self.core.channel(), id = %prompt.id, target_id = %prompt.target_id, origin = %prompt.origin, scheme = %prompt.scheme);
        self.prompts.open.insert(prompt.id.clone(), prompt.clone());
        self.core.notify(prompt.message());
        self.prompts.opened.send_modify(|n| *n += 1);
        tokio::spawn(cancel_unwatched(
            Arc::downgrade(self.core),
            Arc::downgrade(self.prompts),
            prompt.id,
        ));
    }

    /// Closes the login prompts of a tab that went away (see `tabs::tracking::untrack`).
    pub(in crate::browser) fn forget(&self, target_id: &str) {
        self.drop_prompts(|p| p.target_id == target_id);
    }

    /// Forgets the prompts `which` picks, telling panes.
    fn drop_prompts(&self, which: impl Fn(&AuthPrompt) -> bool) -> Vec<AuthPrompt> {
        let dropped: Vec<AuthPrompt> = self
            .prompts
            .open
            .take_where(which)
            .into_iter()
            .map(|(_, prompt)| prompt)
            .collect();
        for prompt in &dropped {
            self.core.notify(PaneMessage::AuthPromptClosed {
                id: prompt.id.clone(),
            });
        }
        dropped
    }

    /// The login prompts waiting for the person (for a pane that attaches while one is open).
    pub(crate) fn all(&self) -> Vec<AuthPrompt> {
        self.prompts
            .open
            .read(|open| open.iter().map(|(_, p)| p.clone()).collect())
    }

    /// The login prompt open in a tab, if any (agents are told to call `request_human`).
    pub(crate) fn prompt_in(&self, target_id: &str) -> Option<AuthPrompt> {
        self.prompts.open.read(|open| {
            open.iter()
                .map(|(_, p)| p)
                .find(|p| p.target_id == target_id)
                .cloned()
        })
    }

    /// Resolves with the login prompt of `target_id` once one is open (at once if one is):
    /// a tool whose navigation is held by a login ends with what to do instead of waiting.
    pub(crate) async fn prompt_opens(&self, target_id: &str) -> AuthPrompt {
        let mut opened = self.prompts.opened.subscribe();
        loop {
            if let Some(prompt) = self.prompt_in(target_id) {
                return prompt;
            }
            if opened.changed().await.is_err() {
                return std::future::pending().await;
            }
        }
    }

    /// Answers prompt `id` with credentials, or cancels it (the page shows the server's 401).
    pub(crate) async fn answer(&self, id: &str, answer: AuthAnswer) -> Result<(), AuthError> {
        let cancel = matches!(answer, AuthAnswer::Cancel);
        let prompt = self
            .drop_prompts(|p| p.id == id)
            .pop()
            .ok_or_else(|| AuthError::NoPrompt(id.to_string()))?;
        let response = match answer {
            AuthAnswer::Credentials { username, password } => json!({
                "response": "ProvideCredentials",
                "username": username,
                "password": password,
            }),
            AuthAnswer::Cancel => json!({ "response": "CancelAuth" }),
        };
        tracing::info!(event = "auth_prompt_answered", channel_id = %self.core.channel(), %id, origin = %prompt.origin, cancelled = cancel);
        self.core
            .cdp()
            .call(
                "Fetch.continueWithAuth",
                json!({ "requestId": prompt.request_id, "authChallengeResponse": response }),
            )
            .await
            .map_err(|e| AuthError::Session(e.into()))?;
        Ok(())
    }
}

/// Cancels prompt `id` once it has waited [`UNWATCHED_PROMPT`] with no pane attached (checked
/// again every period while a pane is).
async fn cancel_unwatched(core: Weak<SessionCore>, prompts: Weak<AuthPrompts>, id: String) {
    loop {
        tokio::time::sleep(UNWATCHED_PROMPT).await;
        let (Some(core), Some(prompts)) = (core.upgrade(), prompts.upgrade()) else {
            return;
        };
        let auth = Auth::new(&core, &prompts);
        if !core.is_alive() || !auth.all().iter().any(|p| p.id == id) {
            return;
        }
        if core.pane_count() == 0 {
            tracing::info!(event = "auth_prompt_unwatched", channel_id = %core.channel(), %id);
            if let Err(error) = auth.answer(&id, AuthAnswer::Cancel).await {
                tracing::debug!(event = "auth_prompt_cancel_failed", %error);
            }
            return;
        }
    }
}
