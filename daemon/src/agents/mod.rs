//! Agent identities (DESIGN.md §12): each agent has its own token, bound to one channel, with
//! its own denied tools. Tokens are shown once, at creation; only their SHA-256 is stored (in
//! `state.sqlite3`), and every request looks the hash up there, so a removed agent's token
//! stops working at once, whichever process removed it (the daemon's API or `porthole agent
//! remove`).
//!
//! Owns identity and policy (which tools an agent may call and which setting says no). Knows
//! nothing of HTTP or browsers.

pub mod howto;
pub(crate) mod socket;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use porthole_mcp::ToolName;
use sha2::{Digest, Sha256};

pub use crate::approvals::Confirm;
use crate::approvals::{ApprovalKind, ConfirmError, Remembered};
use crate::channel_id::ChannelId;
pub use crate::sites::Sites;
use crate::sites::{SiteError, SiteRules};
use crate::state::{AgentRow, Claim, StateDb, StateError};

/// What agent tokens start with (owner tokens are bare hex), so a misplaced one is recognisable.
pub(crate) const AGENT_TOKEN_PREFIX: &str = "pha_";

/// How often `last_seen` is written for one agent at most.
const LAST_SEEN_EVERY: Duration = Duration::from_secs(5);

/// A known agent, as requests carry it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct AgentIdentity {
    pub agent_id: String,
    /// The one channel this agent may act on.
    pub channel_id: String,
    pub name: String,
    /// Tools this agent may not call (its own list; the config's `agents.deny_tools` applies too).
    pub deny_tools: Vec<String>,
    /// Seconds since the Unix epoch of its last request, if any.
    pub last_seen: Option<i64>,
    /// May act while its channel is in host mode, in the user's own Chrome (its own setting;
    /// the config's `agents.allow_host_mode` allows every agent).
    pub allow_host_mode: bool,
    /// The sites it may open (its own lists; the config's `agents.sites` applies too).
    pub sites: Sites,
    /// The acts it must ask the person about (its own kinds; `agents.confirm` applies too).
    pub confirm: Confirm,
}

impl From<AgentRow> for AgentIdentity {
    fn from(row: AgentRow) -> Self {
        Self {
            agent_id: row.agent_id,
            channel_id: row.channel_id,
            name: row.name,
            deny_tools: row.deny_tools,
            last_seen: row.last_seen,
            allow_host_mode: row.allow_host_mode,
            sites: row.sites,
            confirm: row.confirm,
        }
    }
}

/// A freshly created agent and its token (the only time the token is seen).
#[derive(Debug, Clone)]
pub struct NewAgent {
    pub identity: AgentIdentity,
    pub token: String,
}

/// Creating or finding an agent failed; the message is for a person.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("unknown tool {name:?} in deny_tools; valid names: {valid}")]
    UnknownTool { name: String, valid: String },
    #[error("agent name must be 1 to 64 printable characters")]
    BadName,
    #[error(transparent)]
    BadSites(#[from] SiteError),
    #[error(transparent)]
    BadConfirm(#[from] ConfirmError),
    #[error(transparent)]
    BadChannel(#[from] crate::channel_id::InvalidChannelId),
    #[error("channel {asked} differs from the existing channel {existing} only in case; on a case-insensitive file system the two would share one profile, so use {existing} or another name")]
    CaseClash {
        asked: ChannelId,
        existing: ChannelId,
    },
    #[error(transparent)]
    State(#[from] StateError),
}

/// Which setting refuses a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denied {
    /// `agents.deny_tools` in the daemon's config.
    ByConfig,
    /// The agent's own `deny_tools`.
    ByAgent,
}

impl Denied {
    /// The refusal an agent reads.
    pub fn message(&self, tool: &str) -> String {
        match self {
            Denied::ByConfig => format!(
                "The tool {tool} is turned off on this Porthole daemon (agents.deny_tools in its \
                 config). Use another tool, or ask the person who runs Porthole."
            ),
            Denied::ByAgent => format!(
                "The tool {tool} is turned off for this agent (its deny_tools, set when the \
                 agent was added). Use another tool, or ask the person who runs Porthole."
            ),
        }
    }
}

/// What an agent reads when its channel is in host mode and it may not act there.
pub(crate) fn host_mode_refusal(channel: &str) -> String {
    format!(
        "Channel {channel} is in host mode (the person's own Chrome), and this agent may not act \
         there: it was added without allow_host_mode. Nothing was done. Ask the person who runs \
         Porthole to switch the channel back (local or docker mode), or to add an agent with \
         `porthole agent add {channel} --host` (or set agents.allow_host_mode in the config)."
    )
}

/// The registry of agents over the state database.
pub struct Agents {
    state: Arc<StateDb>,
    /// `agents.deny_tools` from the config.
    deny_by_config: Vec<String>,
    /// `agents.allow_host_mode` from the config: every agent may act in host mode.
    host_mode_for_all: bool,
    /// `agents.sites` from the config: every agent is held to these too.
    sites_for_all: Sites,
    /// `agents.confirm` from the config: every agent asks about these too.
    confirm_for_all: Confirm,
    /// `agents.approval_timeout_secs`.
    approval_timeout: Duration,
    /// `agents.act_settle_ms`.
    act_settling: Duration,
    /// The person's "always on this site" answers, per agent, until the daemon stops.
    remembered: Arc<Remembered>,
    /// When each agent's `last_seen` was last written. Short lock.
    seen: Mutex<HashMap<String, Instant>>,
    /// Agents recorded as having tabs open (mirrors the database). Short lock.
    tabs_open: Mutex<std::collections::HashSet<String>>,
    /// `agents.max_calls_in_flight`: tool calls one agent may have running at once.
    max_calls_in_flight: usize,
    /// Each agent's tool calls running now. Short lock.
    in_flight: Arc<Mutex<HashMap<String, usize>>>,
    /// Cancelled when the agent is deleted (its open CDP door connections end). Short lock.
    gone: Mutex<HashMap<String, tokio_util::sync::CancellationToken>>,
    /// The turns all of an agent's CDP door connections share (see [`Agents::door_turns`]),
    /// kept while one of its connections holds them. Short lock.
    door_turns: Mutex<HashMap<String, std::sync::Weak<tokio::sync::Semaphore>>>,
}

/// Held while one of an agent's tool calls runs (see [`Agents::begin_call`]).
#[derive(Debug)]
pub struct CallSlot {
    agent_id: String,
    in_flight: Arc<Mutex<HashMap<String, usize>>>,
}

impl Drop for CallSlot {
    fn drop(&mut self) {
        let mut in_flight = self.in_flight.lock().expect("in flight lock");
        if let Some(n) = in_flight.get_mut(&self.agent_id) {
            *n -= 1;
            if *n == 0 {
                in_flight.remove(&self.agent_id);
            }
        }
    }
}

/// The setting that bounds an agent's calls in flight (named in every refusal).
pub(crate) const MAX_CALLS_IN_FLIGHT_KEY: &str = "agents.max_calls_in_flight";

/// Default of `agents.approval_timeout_secs`.
pub(crate) const DEFAULT_APPROVAL_TIMEOUT_SECS: u64 = 120;

/// Default of `agents.max_calls_in_flight`.
pub(crate) const DEFAULT_MAX_CALLS_IN_FLIGHT: usize = 8;

/// An agent already has `max` tool calls running.
#[derive(Debug, Clone, thiserror::Error)]
#[error("this agent already has {max} tool calls running, the most one agent may have at once ({MAX_CALLS_IN_FLIGHT_KEY} in the daemon's config); nothing was done. Wait for one to finish and call again.")]
pub struct TooManyCalls {
    pub max: usize,
}

impl Agents {
    pub fn new(state: Arc<StateDb>, deny_by_config: Vec<String>) -> Self {
        Self {
            state,
            deny_by_config,
            host_mode_for_all: false,
            sites_for_all: Sites::default(),
            confirm_for_all: Confirm::default(),
            approval_timeout: Duration::from_secs(DEFAULT_APPROVAL_TIMEOUT_SECS),
            act_settling: Duration::from_millis(DEFAULT_ACT_SETTLE_MS),
            remembered: Arc::default(),
            seen: Mutex::new(HashMap::new()),
            tabs_open: Mutex::new(Default::default()),
            max_calls_in_flight: DEFAULT_MAX_CALLS_IN_FLIGHT,
            in_flight: Arc::new(Mutex::new(HashMap::new())),
            gone: Mutex::new(HashMap::new()),
            door_turns: Mutex::new(HashMap::new()),
        }
    }

    /// The turns of `agent_id`'s CDP door commands: `agents.max_calls_in_flight` of them run
    /// at once across all its door connections (the rest wait; apart from its tool-call slots,
    /// so a busy client never starves its MCP calls). The same semaphore while any of its
    /// connections holds it.
    pub(crate) fn door_turns(&self, agent_id: &str) -> Arc<tokio::sync::Semaphore> {
        let mut turns = self.door_turns.lock().expect("door turns lock");
        turns.retain(|_, held| held.strong_count() > 0);
        if let Some(held) = turns.get(agent_id).and_then(std::sync::Weak::upgrade) {
            return held;
        }
        let fresh = Arc::new(tokio::sync::Semaphore::new(self.max_calls_in_flight.max(1)));
        turns.insert(agent_id.to_string(), Arc::downgrade(&fresh));
        fresh
    }

    /// Cancelled when `agent_id` is deleted: what its long-lived connections (the CDP door)
    /// wait on to end.
    pub(crate) fn gone(&self, agent_id: &str) -> tokio_util::sync::CancellationToken {
        let token = {
            let mut gone = self.gone.lock().expect("gone lock");
            gone.entry(agent_id.to_string()).or_default().clone()
        };
        // Deleted before the token was kept (`remove` found none to cancel): cancelled now.
        // A list that cannot be read cannot say the agent still exists: its connection ends
        // (fail closed; the client may reconnect, and is admitted again or refused).
        let exists = self
            .list()
            .map(|all| all.iter().any(|a| a.agent_id == agent_id))
            .unwrap_or(false);
        if !exists {
            self.gone.lock().expect("gone lock").remove(agent_id);
            token.cancel();
        }
        token
    }

    /// Bounds the tool calls one agent may have running at once (`agents.max_calls_in_flight`).
    pub(crate) fn with_max_calls_in_flight(mut self, max: usize) -> Self {
        self.max_calls_in_flight = max;
        self
    }

    /// Counts one of `agent_id`'s tool calls until the slot drops; refused at once when the
    /// agent already has `agents.max_calls_in_flight` running.
    pub(crate) fn begin_call(&self, agent_id: &str) -> Result<CallSlot, TooManyCalls> {
        let mut in_flight = self.in_flight.lock().expect("in flight lock");
        let running = in_flight.entry(agent_id.to_string()).or_insert(0);
        if *running >= self.max_calls_in_flight {
            return Err(TooManyCalls {
                max: self.max_calls_in_flight,
            });
        }
        *running += 1;
        Ok(CallSlot {
            agent_id: agent_id.to_string(),
            in_flight: self.in_flight.clone(),
        })
    }

    /// Lets every agent act in host mode (`agents.allow_host_mode`).
    pub(crate) fn with_host_mode_for_all(mut self, allow: bool) -> Self {
        self.host_mode_for_all = allow;
        self
    }

    /// May `agent` (`None`: the owner token) act while its channel is in host mode?
    pub(crate) fn may_use_host_mode(&self, agent: Option<&AgentIdentity>) -> bool {
        agent.is_none_or(|a| a.allow_host_mode || self.host_mode_for_all)
    }

    /// `(agent_id, channel_id)` of agents that had tabs open when the daemon last stopped
    /// (their browser is gone now); read once at start.
    pub(crate) fn tabs_left_open(&self) -> Vec<(String, String)> {
        match self.state.agents_with_tabs_open() {
            Ok(open) => {
                let mut cache = self.tabs_open.lock().expect("tabs open lock");
                cache.extend(open.iter().map(|(agent, _)| agent.clone()));
                open
            }
            Err(error) => {
                tracing::warn!(event = "state_unreadable", %error);
                Vec::new()
            }
        }
    }

    /// Creates an agent for `channel`; the token in the answer is never shown again.
    pub fn add(
        &self,
        channel: &str,
        name: Option<&str>,
        deny_tools: &[String],
        allow_host_mode: bool,
        sites: Sites,
        confirm: Confirm,
    ) -> Result<NewAgent, AgentError> {
        let channel = ChannelId::parse(channel)?;
        let name = name.map(str::trim).unwrap_or("agent");
        if name.is_empty() || name.chars().count() > 64 || name.chars().any(char::is_control) {
            return Err(AgentError::BadName);
        }
        let deny_tools = check_tools(deny_tools)?;
        sites.check()?;
        let confirm = confirm.normalized()?;
        // Adding an agent makes its channel exist (an agent's own calls never create one).
        if let Claim::CaseClash(existing) = self.state.claim_channel(&channel, None)? {
            return Err(AgentError::CaseClash {
                asked: channel,
                existing,
            });
        }
        let id_bytes: [u8; 6] = rand::random();
        let token_bytes: [u8; 32] = rand::random();
        let token = format!("{AGENT_TOKEN_PREFIX}{}", hex(&token_bytes));
        let row = AgentRow {
            agent_id: format!("ag_{}", hex(&id_bytes)),
            channel_id: channel.to_string(),
            name: name.to_string(),
            deny_tools,
            last_seen: None,
            allow_host_mode,
            sites,
            confirm,
        };
        self.state.add_agent(&row, &token_hash(&token))?;
        tracing::info!(event = "agent_added", agent_id = %row.agent_id, channel_id = %row.channel_id, name = %row.name, allow_host_mode);
        Ok(NewAgent {
            identity: row.into(),
            token,
        })
    }

    /// Every agent (never a token).
    pub fn list(&self) -> Result<Vec<AgentIdentity>, AgentError> {
        Ok(self.state.agents()?.into_iter().map(Into::into).collect())
    }

    /// Replaces an agent's sites (from its next call on). False when there is no such agent.
    pub fn set_sites(&self, agent_id: &str, sites: &Sites) -> Result<bool, AgentError> {
        sites.check()?;
        let set = self.state.set_agent_sites(agent_id, sites)?;
        if set {
            tracing::info!(event = "agent_sites_set", %agent_id, allow = sites.allow.len(), deny = sites.deny.len());
        }
        Ok(set)
    }

    /// Replaces an agent's `confirm` kinds (from its next call on). False when there is no
    /// such agent.
    pub fn set_confirm(&self, agent_id: &str, confirm: &Confirm) -> Result<bool, AgentError> {
        let confirm = confirm.normalized()?;
        let set = self.state.set_agent_confirm(agent_id, &confirm)?;
        if set {
            tracing::info!(event = "agent_confirm_set", %agent_id, kinds = ?confirm.0);
        }
        Ok(set)
    }

    /// The kinds `agent` asks the person about: the config's `agents.confirm` and its own
    /// (a kind that does not parse asks about everything rather than nothing).
    pub(crate) fn confirm_kinds(&self, agent: &AgentIdentity) -> Vec<ApprovalKind> {
        let mut kinds = Vec::new();
        for list in [&self.confirm_for_all, &agent.confirm] {
            kinds.extend(list.kinds().unwrap_or_else(|_| ApprovalKind::ALL.to_vec()));
        }
        kinds.sort();
        kinds.dedup();
        kinds
    }

    /// The person's "always on this site" answers (kept until the daemon stops).
    pub(crate) fn remembered(&self) -> &Arc<Remembered> {
        &self.remembered
    }

    /// `agents.approval_timeout_secs`.
    pub(crate) fn approval_timeout(&self) -> Duration {
        self.approval_timeout
    }

    /// `agents.confirm`: the kinds every agent asks about.
    pub(crate) fn confirm_for_all(&self) -> &Confirm {
        &self.confirm_for_all
    }

    /// Every agent asks the person about `confirm` too, and waits at most `timeout`.
    pub(crate) fn with_approvals(mut self, confirm: Confirm, timeout: Duration) -> Self {
        self.confirm_for_all = confirm;
        self.approval_timeout = timeout;
        self
    }

    /// An agent's tab's requests count as its acts until `settling` after its call ends.
    pub(crate) fn with_act_settling(mut self, settling: Duration) -> Self {
        self.act_settling = settling;
        self
    }

    /// `agents.act_settle_ms`.
    pub(crate) fn act_settling(&self) -> Duration {
        self.act_settling
    }

    /// The site rules `agent` is held to: the config's `agents.sites` and its own.
    pub(crate) fn site_rules(&self, agent: &AgentIdentity) -> SiteRules {
        SiteRules::new(&[
            ("agents.sites", &self.sites_for_all),
            ("the agent's sites", &agent.sites),
        ])
    }

    /// `agents.sites`: the lists every agent is held to.
    pub(crate) fn sites_for_all(&self) -> &Sites {
        &self.sites_for_all
    }

    /// Holds every agent to `sites` as well as its own (`agents.sites`).
    pub(crate) fn with_sites_for_all(mut self, sites: Sites) -> Self {
        self.sites_for_all = sites;
        self
    }

    /// Deletes an agent; its token stops working at once. False when there was none.
    pub fn remove(&self, agent_id: &str) -> Result<bool, AgentError> {
        let removed = self.state.remove_agent(agent_id)?;
        if removed {
            self.remembered.forget(agent_id);
            if let Some(gone) = self.gone.lock().expect("gone lock").remove(agent_id) {
                gone.cancel();
            }
            tracing::info!(event = "agent_removed", %agent_id);
        }
        Ok(removed)
    }

    /// The agent holding `token`, if any (a wrong or removed token is `None`).
    pub fn authenticate(&self, token: &str) -> Result<Option<AgentIdentity>, AgentError> {
        if !token.starts_with(AGENT_TOKEN_PREFIX) {
            return Ok(None);
        }
        let Some(row) = self.state.agent_by_token(&token_hash(token))? else {
            return Ok(None);
        };
        let due = {
            let mut seen = self.seen.lock().expect("seen lock");
            let due = seen
                .get(&row.agent_id)
                .is_none_or(|at| at.elapsed() >= LAST_SEEN_EVERY);
            if due {
                seen.insert(row.agent_id.clone(), Instant::now());
            }
            due
        };
        if due {
            if let Err(error) = self.state.touch_agent(&row.agent_id) {
                tracing::warn!(event = "state_write_failed", %error);
            }
        }
        Ok(Some(row.into()))
    }

    /// Why `tool` is refused to `agent` (`None`: the owner token), if it is.
    pub fn denied(&self, agent: Option<&AgentIdentity>, tool: &str) -> Option<Denied> {
        if self.deny_by_config.iter().any(|t| t == tool) {
            return Some(Denied::ByConfig);
        }
        agent
            .filter(|a| a.deny_tools.iter().any(|t| t == tool))
            .map(|_| Denied::ByAgent)
    }

    /// Every tool refused to `agent` (config and its own), sorted.
    pub(crate) fn denied_tools(&self, agent: Option<&AgentIdentity>) -> Vec<String> {
        let mut all: Vec<String> = self.deny_by_config.clone();
        if let Some(agent) = agent {
            all.extend(agent.deny_tools.iter().cloned());
        }
        all.sort();
        all.dedup();
        all
    }

    /// Records whether an agent has tabs open (a daemon restart then tells it they are gone).
    pub(crate) fn set_tabs_open(&self, agent_id: &str, open: bool) {
        let changed = {
            let mut cache = self.tabs_open.lock().expect("tabs open lock");
            if open {
                cache.insert(agent_id.to_string())
            } else {
                cache.remove(agent_id)
            }
        };
        if !changed {
            return;
        }
        if let Err(error) = self.state.set_agent_tabs_open(agent_id, open) {
            tracing::warn!(event = "state_write_failed", %error);
        }
    }
}

/// What `deny_tools` may name besides the MCP tools: `cdp`, the CDP door (DESIGN.md §21).
pub const CDP_DOOR_TOOL: &str = "cdp";
/// Default of `agents.act_settle_ms`.
pub const DEFAULT_ACT_SETTLE_MS: u64 = 2000;

/// Checks tool names against the vocabulary (and [`CDP_DOOR_TOOL`]); returns them sorted and
/// deduplicated.
pub(crate) fn check_tools(names: &[String]) -> Result<Vec<String>, AgentError> {
    let mut out = Vec::new();
    for name in names {
        let name = name.trim();
        if name != CDP_DOOR_TOOL && name.parse::<ToolName>().is_err() {
            return Err(AgentError::UnknownTool {
                name: name.to_string(),
                valid: format!("{}, {CDP_DOOR_TOOL} (the CDP door)", ToolName::list()),
            });
        }
        out.push(name.to_string());
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// The stored form of a token.
fn token_hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry() -> Agents {
        Agents::new(
            Arc::new(StateDb::in_memory().unwrap()),
            vec!["evaluate".into()],
        )
    }

    #[test]
    fn tokens_authenticate_until_removed_and_are_never_stored() {
        let agents = registry();
        let new = agents
            .add(
                "chan",
                Some("alpha"),
                &[],
                false,
                Sites::default(),
                Confirm::default(),
            )
            .unwrap();
        assert!(new.token.starts_with(AGENT_TOKEN_PREFIX));
        let found = agents.authenticate(&new.token).unwrap().unwrap();
        assert_eq!(found.agent_id, new.identity.agent_id);
        assert_eq!(found.channel_id, "chan");
        assert!(agents.authenticate("pha_wrong").unwrap().is_none());
        assert!(agents.authenticate("not-an-agent-token").unwrap().is_none());
        assert!(agents.remove(&new.identity.agent_id).unwrap());
        assert!(agents.authenticate(&new.token).unwrap().is_none());
    }

    #[test]
    fn deny_lists_name_their_setting_and_unknown_tools_are_refused() {
        let agents = registry();
        let new = agents
            .add(
                "chan",
                None,
                &["navigate".into(), "navigate".into()],
                false,
                Sites::default(),
                Confirm::default(),
            )
            .unwrap();
        assert_eq!(new.identity.deny_tools, vec!["navigate".to_string()]);
        let id = Some(&new.identity);
        assert_eq!(agents.denied(id, "evaluate"), Some(Denied::ByConfig));
        assert_eq!(agents.denied(id, "navigate"), Some(Denied::ByAgent));
        assert_eq!(agents.denied(None, "navigate"), None);
        assert_eq!(agents.denied(id, "read_page"), None);
        assert_eq!(agents.denied_tools(id), vec!["evaluate", "navigate"]);
        let error = agents
            .add(
                "chan",
                None,
                &["fly".into()],
                false,
                Sites::default(),
                Confirm::default(),
            )
            .unwrap_err();
        assert!(error.to_string().contains("read_page"), "{error}");
        assert!(agents
            .add(
                "bad id!",
                None,
                &[],
                false,
                Sites::default(),
                Confirm::default()
            )
            .is_err());
        assert!(agents
            .add(
                "chan",
                Some(""),
                &[],
                false,
                Sites::default(),
                Confirm::default()
            )
            .is_err());
    }

    #[test]
    fn calls_in_flight_are_bounded_per_agent() {
        let agents = registry().with_max_calls_in_flight(2);
        let first = agents.begin_call("a").unwrap();
        let _second = agents.begin_call("a").unwrap();
        let refused = agents.begin_call("a").unwrap_err();
        assert!(
            refused.to_string().contains(MAX_CALLS_IN_FLIGHT_KEY),
            "{refused}"
        );
        let _other = agents
            .begin_call("b")
            .expect("another agent is not affected");
        drop(first);
        let _again = agents
            .begin_call("a")
            .expect("a finished call frees its slot");
    }

    #[test]
    fn adding_an_agent_records_its_channel_and_refuses_a_case_clash() {
        let agents = registry();
        agents
            .add(
                "work",
                None,
                &[],
                false,
                Sites::default(),
                Confirm::default(),
            )
            .unwrap();
        let work = ChannelId::parse("work").unwrap();
        assert!(agents.state.is_recorded(&work).unwrap());
        assert_eq!(
            agents.state.mode_of(&work).unwrap(),
            None,
            "the daemon's default"
        );
        let error = agents
            .add(
                "Work",
                None,
                &[],
                false,
                Sites::default(),
                Confirm::default(),
            )
            .unwrap_err();
        assert!(matches!(error, AgentError::CaseClash { .. }), "{error}");
        assert_eq!(agents.list().unwrap().len(), 1);
    }

    #[test]
    fn host_mode_needs_the_agents_own_setting_or_the_configs() {
        let agents = registry();
        let plain = agents
            .add(
                "chan",
                None,
                &[],
                false,
                Sites::default(),
                Confirm::default(),
            )
            .unwrap()
            .identity;
        let host = agents
            .add(
                "chan",
                None,
                &[],
                true,
                Sites::default(),
                Confirm::default(),
            )
            .unwrap()
            .identity;
        assert!(!agents.may_use_host_mode(Some(&plain)));
        assert!(agents.may_use_host_mode(Some(&host)));
        assert!(agents.may_use_host_mode(None), "the owner token");
        let listed = agents.list().unwrap();
        let stored = |id: &str| {
            listed
                .iter()
                .find(|a| a.agent_id == id)
                .unwrap()
                .allow_host_mode
        };
        assert!(!stored(&plain.agent_id));
        assert!(stored(&host.agent_id));
        let all = Agents::new(Arc::new(StateDb::in_memory().unwrap()), vec![])
            .with_host_mode_for_all(true);
        assert!(all.may_use_host_mode(Some(&plain)));
        assert!(host_mode_refusal("chan").contains("allow_host_mode"));
    }
}
